import Foundation
import GalleyBase
import GalleyManifest
import GalleyRaster
import GalleyText

extension OutputStore {
    /// Deletes page images, thumbnails and document files of these documents that this run did
    /// not write (pages a document no longer has, thumbnail boxes, layouts and document formats
    /// no longer configured, page images turned off), and says what went and why. A document
    /// that failed keeps what an earlier run made of it: the failure may be passing (a file
    /// being copied), and its old images are all a user has of it.
    ///
    /// Only files named as outputs are touched (`page-NNNN.<ext>`, in any image format, in a document's
    /// page and thumbnail folders, `document.<ext>` of a document format), never another
    /// document's folder.
    ///
    /// `keepingPageImages`: a thumbnails-only run removes no page image.
    func removeStaleOutputs(of documents: [Manifest.Document], configuration: Configuration,
                            keepingPageImages: Bool) -> [Removal] {
        // Every format's: a change of format leaves none of the old files behind.
        let imageExtensions = ImageFormat.allCases.map { ".\($0.fileExtension)" }
        // Every folder that holds a document's own folder.
        var ownFolders = Set<String>()
        for document in documents {
            var folder = document.name
            while ownFolders.insert(folder).inserted, let slash = folder.lastIndex(of: "/") { folder = String(folder[..<slash]) }
        }
        let documentFiles = Set(DocumentFormatName.allCases.map { "document.\($0.format.fileExtension)" })
        let layouts = Set(configuration.layouts.map(\.name))
        var removals: [Removal] = []
        for document in documents where document.status == .ok {
            let keep = Set(document.outputPaths)
            // Page folders with the layout each stands for (articles), or nil (PDFs).
            var pageFolders: [(path: String, layout: String?)] = [(document.name, nil)]
            if document.kind == .markup {
                // Every layout folder, configured or not, so a layout removed from pipeline.yml
                // leaves nothing behind; but never a folder of another document (`a.html` and
                // `a/b.pdf` share `a/`).
                let entries = confined.entries(of: document.name)
                pageFolders = entries.filter { entry in entry != "thumbs" && !entry.hasSuffix(".pdf") && !imageExtensions.contains { entry.hasSuffix($0) } }.sorted()
                    .map { ("\(document.name)/\($0)", $0) }.filter { !ownFolders.contains($0.path) }
            }
            var counts: [String: (what: String, reason: String, count: Int)] = [:]
            func count(_ what: String, _ reason: String) {
                counts["\(what)\u{0}\(reason)", default: (what, reason, 0)].count += 1
            }
            // A layout's PDF beside its folder (`<document>/<layout>.pdf`): a file, where a PDF
            // document's own folder (`a/b.pdf/`) is a folder, which `removeFile` leaves alone.
            if document.kind == .markup {
                for entry in confined.entries(of: document.name).sorted() where entry.hasSuffix(".pdf") {
                    let path = "\(document.name)/\(entry)", layout = String(entry.dropLast(4))
                    guard !ownFolders.contains(path), !keep.contains(path), ArticleLayout.isUsableName(layout), confined.removeFile(path) else { continue }
                    count("document files", layouts.contains(layout) ? "pdf is off for layout \(layout)" : "layout \(layout) no longer configured")
                }
            }
            var emptied: [String] = []
            for (pageFolder, layout) in pageFolders {
                let gone = layout.map { layouts.contains($0) ? nil : "layout \($0) no longer configured" } ?? nil
                let thumbs = "\(pageFolder)/thumbs"
                let boxes = confined.entries(of: thumbs)
                var folders: [(path: String, box: Int?)] = [(pageFolder, nil)]
                folders += boxes.compactMap { name in Int(name).map { ("\(thumbs)/\(name)", $0) } }.sorted { $0.path < $1.path }
                for (folder, box) in folders {
                    let entries = confined.entries(of: folder)
                    for entry in entries.sorted() {
                        let isPage = entry.hasPrefix("page-") && imageExtensions.contains { entry.hasSuffix($0) }
                        guard isPage || (box == nil && documentFiles.contains(entry)) else { continue }
                        if isPage && box == nil && keepingPageImages { continue }
                        let path = "\(folder)/\(entry)"
                        guard !keep.contains(path), confined.removeFile(path) else { continue }
                        // With a page selection, a page missing from the manifest may simply not be selected.
                        let missingPage = configuration.pageSelection != nil || configuration.maxPages != nil
                            ? "pages it no longer has or that are not selected" : "pages it no longer has"
                        if let box {
                            count("thumbnails", gone ?? (configuration.thumbnailBoxes.contains(box) ? missingPage : "thumbnail box \(box) no longer configured"))
                        } else if !isPage {
                            count("document files", gone ?? "its format is no longer in documents:")
                        } else {
                            count("page images", gone ?? (configuration.pageImages ? missingPage : "page_images is off"))
                        }
                    }
                    if box != nil { emptied.append(folder) }
                }
                emptied.append(thumbs)
            }
            // A thumbnail box no longer configured, or thumbnails turned off, leave no empty
            // folder behind: box folders first, then `thumbs`.
            for folder in emptied { confined.removeEmptyFolder(folder) }
            removals += counts.values.sorted { ($0.what, $0.reason) < ($1.what, $1.reason) }
                .map { Removal(source: document.source, what: $0.what, count: $0.count, reason: $0.reason) }
        }
        return removals
    }
}
