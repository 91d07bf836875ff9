import Foundation
import GalleyBase
import GalleyPDF
import GalleyText

/// What `galley inspect --json` prints: `schemas/inspect.schema.json`.
public struct InspectReport: Codable, Sendable, Equatable {
    /// 1 until a key changes meaning or goes away.
    public var schemaVersion = 1
    public var documents: [Inspection]

    public init(documents: [Inspection]) {
        self.documents = documents
    }
}

/// What `galley inspect` reports about one document, read without drawing anything: enough
/// to decide how to configure a run, and to see why a document would fail.
///
/// In JSON every key is always present, `null` where it does not apply or is unknown (an
/// article's encryption, a PDF's language), so a reader never has to tell a missing key from
/// a missing value.
public struct Inspection: Codable, Sendable, Equatable {
    /// The path as scanned (relative to the current folder when given that way).
    public var path: String
    public var kind: SourceDocument.Kind
    public var bytes: Int?
    /// Why the document cannot be read, with the code a run would record.
    public var error: Failure?
    /// Whether a PDF is encrypted (whether or not it needed a password).
    public var encrypted: Bool?
    /// A PDF's encryption as MuPDF names it (`Standard V5 R6 256-bit AES`), nil when it has none.
    public var encryption: String?
    /// MuPDF rebuilt a damaged cross-reference table to open it (PDFs).
    public var repaired: Bool?
    /// `info:Title` of a PDF, `<title>` of an article.
    public var title: String?
    /// `info:Author` of a PDF, `<meta name="author">` of an article.
    public var author: String?
    /// PDF pages, or the sum of the article's pages over its layouts.
    public var pageCount: Int?
    /// Link annotations of a PDF; distinct links (`<a href>`) of an article.
    public var linkCount: Int?
    /// PDF pages with their sizes, rotations and links.
    public var pages: [Page]?
    /// Articles: Unicode scalars of the text, its language, pictures and layouts.
    public var textLength: Int?
    public var language: String?
    /// The language read from the letters of an article whose markup and layouts give none
    /// (`LanguageGuesser`); nil otherwise.
    public var guessedLanguage: String?
    public var imageCount: Int?
    public var layouts: [Layout]?
    /// What a run would warn about (articles: markup and pictures).
    public var warnings: [String]?

    public struct Page: Codable, Sendable, Equatable {
        public var number: Int
        /// After CropBox and /Rotate, in points, as the manifest gives them.
        public var widthPt: Double
        public var heightPt: Double
        public var rotation: Int
        public var linkCount: Int
    }

    /// An article in one configured layout.
    public struct Layout: Codable, Sendable, Equatable {
        public var name: String
        public var pageCount: Int
        /// `horizontal-tb` or `vertical-rl` (the markup's writing mode wins over the layout's).
        public var writingMode: String
        public var columns: Int
        public var widthPt: Double
        public var heightPt: Double
        /// Why this layout fails for this article, if it does.
        public var error: Failure?

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(pageCount, forKey: .pageCount)
            try container.encode(writingMode, forKey: .writingMode)
            try container.encode(columns, forKey: .columns)
            try container.encode(widthPt, forKey: .widthPt)
            try container.encode(heightPt, forKey: .heightPt)
            try container.encode(error, forKey: .error)
        }
    }

    /// Every key, `null` when nil.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(kind, forKey: .kind)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(error, forKey: .error)
        try container.encode(encrypted, forKey: .encrypted)
        try container.encode(encryption, forKey: .encryption)
        try container.encode(repaired, forKey: .repaired)
        try container.encode(title, forKey: .title)
        try container.encode(author, forKey: .author)
        try container.encode(pageCount, forKey: .pageCount)
        try container.encode(linkCount, forKey: .linkCount)
        try container.encode(pages, forKey: .pages)
        try container.encode(textLength, forKey: .textLength)
        try container.encode(language, forKey: .language)
        try container.encode(guessedLanguage, forKey: .guessedLanguage)
        try container.encode(imageCount, forKey: .imageCount)
        try container.encode(layouts, forKey: .layouts)
        try container.encode(warnings, forKey: .warnings)
    }
}

/// Inspects documents as `galley run` would read them (passwords, layouts and fonts from the
/// configuration), without drawing or writing anything.
public struct Inspector {
    public let configuration: Configuration
    private let engine: MuPDFEngine
    private let fonts: FontLibrary

    public init(configuration: Configuration) throws {
        self.configuration = configuration
        engine = try MuPDFEngine()
        fonts = try configuration.fontLibrary()
    }

    public func inspect(_ document: SourceDocument) -> Inspection {
        var inspection = Inspection(path: document.url.path, kind: document.kind)
        if let refusal = document.refusal {
            inspection.error = refusal
            return inspection
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: document.url.path))?[.size] as? Int {
            inspection.bytes = size
        }
        do {
            switch document.kind {
            case .pdf: try inspectPDF(document, into: &inspection)
            case .markup: try inspectArticle(document, into: &inspection)
            }
        } catch let failure as Failure {
            inspection.error = failure
        } catch {
            inspection.error = Failure(error)
        }
        return inspection
    }

    private func inspectPDF(_ document: SourceDocument, into inspection: inout Inspection) throws {
        let pdf = try configuration.openPDF(document, engine: engine)
        inspection.encrypted = pdf.isEncrypted
        inspection.encryption = pdf.isEncrypted ? pdf.encryption : nil
        inspection.repaired = pdf.wasRepaired
        inspection.title = pdf.metadata("info:Title")
        inspection.author = pdf.metadata("info:Author")
        inspection.pageCount = pdf.pageCount
        var pages: [Inspection.Page] = []
        for index in 0..<pdf.pageCount {
            do {
                let facts = try pdf.pageFacts(index)
                pages.append(Inspection.Page(number: index + 1, widthPt: manifestPoints(facts.size.width),
                                             heightPt: manifestPoints(facts.size.height), rotation: facts.rotation,
                                             linkCount: facts.links))
            } catch {
                throw Failure(error, page: index + 1)
            }
        }
        inspection.pages = pages
        inspection.linkCount = pages.reduce(0) { $0 + $1.linkCount }
    }

    private func inspectArticle(_ document: SourceDocument, into inspection: inout Inspection) throws {
        let article = try OpenedArticle(document: document, configuration: configuration, engine: engine)
        let first = article.first
        inspection.title = first.title
        inspection.author = first.author
        inspection.language = first.language
        inspection.guessedLanguage = first.guessedLanguage
        inspection.textLength = first.text.count
        inspection.imageCount = first.text.pictures.count
        var links = 0
        var previous: String?
        for run in first.text.styleRuns {
            if let link = run.value.link, link != previous { links += 1 }
            previous = run.value.link
        }
        inspection.linkCount = links
        inspection.warnings = article.warnings
        var layouts: [Inspection.Layout] = []
        for configured in configuration.layouts {
            let (parsed, layout) = article.prepared(for: configured)
            var entry = Inspection.Layout(name: layout.name, pageCount: 0, writingMode: layout.writingMode.rawValue,
                                          columns: layout.columns, widthPt: manifestPoints(layout.pageWidth),
                                          heightPt: manifestPoints(layout.pageHeight))
            do {
                let typesetter = try ArticleTypesetter(text: parsed.text, layout: layout, fonts: fonts, images: article.images)
                while try typesetter.nextPage() != nil { entry.pageCount += 1 }
            } catch {
                entry.error = Failure(code: error.code, message: error.message, page: entry.pageCount + 1)
            }
            layouts.append(entry)
        }
        inspection.layouts = layouts
        inspection.pageCount = layouts.reduce(0) { $0 + $1.pageCount }
    }
}
