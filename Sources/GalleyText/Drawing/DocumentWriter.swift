/// Turns a whole typeset document into one file: the output seam for documents, beside the
/// page description it reads (the text and PDF writers; an SVG writer would be another).
///
/// A writer is made for one layout of one article and fed that layout's pages in order as the
/// typesetter makes them, so a long article is never held whole; `finish` gives the file.
public protocol DocumentWriter: AnyObject {
    /// The next page of the layout.
    func add(_ page: TypesetPage) throws(TypesetError)
    /// The file's bytes, once every page was added.
    func finish() throws(TypesetError) -> [UInt8]
}

/// A kind of document file: its name in `pipeline.yml`, its extension and the settings of its
/// bytes, and the writer it makes for each layout. The pipeline asks these, so a new format is
/// a new conforming type and a name in `DocumentFormatName`, not a change to the stages.
public protocol DocumentFormat: Sendable {
    /// The name `pipeline.yml` lists under `documents:`.
    var name: DocumentFormatName { get }
    /// The extension of its files, without the dot.
    var fileExtension: String { get }
    /// Everything that changes its bytes for the same pages, as a line of text: part of the
    /// document's fingerprint, so a change makes the file again.
    var fingerprint: String { get }
    /// A writer for the pages of `text` set in `layout`.
    func makeWriter(text: AttributedText, layout: ArticleLayout) -> any DocumentWriter
    /// A writer for the pages of `text` set in `layout`, for a file that records `metadata`
    /// (the PDF's title and dates); formats without metadata take the writer above.
    func makeWriter(text: AttributedText, layout: ArticleLayout, metadata: DocumentMetadata) -> any DocumentWriter
}

extension DocumentFormat {
    public func makeWriter(text: AttributedText, layout: ArticleLayout, metadata: DocumentMetadata) -> any DocumentWriter {
        makeWriter(text: text, layout: layout)
    }
}

/// The document formats `pipeline.yml` can ask for under `documents:`.
public enum DocumentFormatName: String, CaseIterable, Sendable, Codable {
    /// The text as set: `TextDocumentFormat`.
    case text
    /// The pages as vector PDF: `PDFDocumentFormat`.
    case pdf

    /// Where a layout's file goes in the output folder: the PDF beside the layout's folder of
    /// pages, `<document>/<layout>.pdf`, a file to hand on; others inside it,
    /// `<document>/<layout>/document.<ext>`.
    public func path(document: String, layout: String) -> String {
        self == .pdf ? "\(document)/\(layout).pdf" : "\(document)/\(layout)/document.\(format.fileExtension)"
    }

    /// The format's implementation.
    public var format: any DocumentFormat {
        switch self {
        case .text: TextDocumentFormat()
        case .pdf: PDFDocumentFormat()
        }
    }
}
