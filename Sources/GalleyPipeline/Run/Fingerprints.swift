import Foundation
import GalleyBase
import GalleyCatalog
import GalleyPDF
import GalleyText

/// Fingerprints of the settings that shape each output, so that a settings change redoes only
/// the outputs it affects: `dpi` changes page images (and the thumbnails reduced from them), a thumbnail box its thumbnails, a layout
/// the pages typeset in it; the settings of the encoder an output is written with (format,
/// preset, quality) change the outputs in that format (page images, thumbnails or both); the
/// versions of Galley and MuPDF change all.
struct Fingerprints: Sendable {
    let configuration: Configuration

    /// The fingerprint of one output of a page.
    func output(_ variant: OutputVariant, layout: ArticleLayout?) -> String {
        var parts = ["galley \(Pipeline.version)", "mupdf \(MuPDFEngine.version)", configuration.encoder(for: variant).fingerprint]
        switch variant {
        case .image: parts.append("image dpi \(configuration.dpi)")
        case .thumbnail(let box):
            parts.append("thumbnail box \(box)")
            // Reduced from the largest box's drawing (`ThumbnailSet`): that box shapes it too.
            if let master = ThumbnailSet(configuration)?.master, master > box { parts.append("reduced from box \(master)") }
            // With page images, reduced from the page image's drawing (`ThumbnailSet.pageImageScale`).
            if configuration.pageImages { parts.append("reduced from page images at dpi \(configuration.dpi)") }
            // Without, a PDF page is run straight into the drawing, with no display list
            // (`LoadedPDFPage`), which on a few pages puts a few pixels otherwise.
            else { parts.append("drawn straight from the page") }
        }
        if let layout { parts.append(layoutKey(layout)) }
        return ContentHash.sha256(Array(parts.joined(separator: "\n").utf8))
    }

    /// Everything about a layout that changes its pages: every field of the layout (its name
    /// too: it names the folder) and the font folders searched.
    func layoutKey(_ layout: ArticleLayout) -> String {
        "layout \(String(reflecting: layout)) fonts \(configuration.fontFolders)"
    }

    /// The outputs every page gets (`OutputVariant.all`).
    func variants() -> [OutputVariant] {
        OutputVariant.all(configuration)
    }

    /// The fingerprint of a layout's document file in `format` (`documents:`).
    func documentFile(_ format: String, layout: ArticleLayout) -> String {
        let fingerprint = DocumentFormatName(rawValue: format)?.format.fingerprint ?? format
        let parts = ["galley \(Pipeline.version)", "document \(fingerprint)", layoutKey(layout)]
        return ContentHash.sha256(Array(parts.joined(separator: "\n").utf8))
    }

    /// One fingerprint for every output a document of this kind gets: equal means a finished
    /// document needs nothing redone.
    func document(_ kind: SourceDocument.Kind) -> String {
        let layouts: [ArticleLayout?] = kind == .pdf ? [nil] : configuration.layouts.map { $0 }
        var parts = layouts.flatMap { layout in variants().map { output($0, layout: layout) } }
        // Articles also get their document files; none configured leaves the fingerprint as
        // it was before document files existed.
        if kind == .markup { parts += configuration.layouts.flatMap { layout in configuration.documentFormatNames(for: layout.name).map { documentFile($0.rawValue, layout: layout) } } }
        // Which pages are drawn: a new selection opens the document again, which keeps the
        // pages already drawn and draws the others. No selection leaves the fingerprint as it
        // was before selections existed.
        if let selection = configuration.pageSelection { parts.append("pages \(selection)") }
        if let limit = configuration.maxPages { parts.append("max pages \(limit)") }
        return ContentHash.sha256(Array(parts.joined(separator: "\n").utf8))
    }
}

extension OutputVariant {
    /// The catalog's name for the variant.
    var catalogName: String {
        switch self {
        case .image: "image"
        case .thumbnail(let box): "thumbnail-\(box)"
        }
    }
}
