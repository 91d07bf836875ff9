import GalleyPDF

/// Bytes as a PDF: opened (with a password, so encrypted files are decrypted too), its
/// metadata and page 1's facts read as `galley inspect` reads them, page 1 recorded and drawn
/// at 18 dpi through the MuPDF shim, and the text of each page (at most `textPages`) extracted
/// as `galley diff --text` extracts it.
public struct PDFFuzzTarget: FuzzTarget {
    public static let name = "FuzzPDF"
    /// The password of `fixtures/pdf/encrypted.pdf`, so mutations of it get past decryption.
    static let password = "galley-secret"
    /// Pages whose text is extracted: a small input may declare thousands of pages, each
    /// parsed like the first.
    static let textPages = 16

    private let engine: MuPDFEngine

    /// One engine for every input, as a run has: MuPDF's store is shared between documents.
    public init() throws(PDFError) {
        engine = try MuPDFEngine(storeBytes: 64 << 20)
    }

    public func run(_ input: [UInt8]) -> FuzzOutcome {
        ScratchFile.with(input, name: "input.pdf") { file in
            var outcome = FuzzOutcome()
            let document: PDFDocument
            do {
                document = try PDFDocument(path: file.path, password: Self.password, engine: engine)
            } catch {
                outcome.errors.append("\(error)")
                return outcome
            }
            do {
                _ = document.metadata("info:Title")
                _ = document.metadata("info:Author")
                _ = try document.pageFacts(0)
                let page = try document.recordPage(0)
                try PageDrawing.draw(page, dpi: 18)
                outcome.pagesDrawn += 1
            } catch {
                outcome.errors.append("\(error)")
            }
            // Whatever became of page 1: `--text` reads every page of a document that opens.
            for index in 0..<min(document.pageCount, Self.textPages) {
                do {
                    _ = try document.pageText(index)
                    outcome.pagesOfText += 1
                } catch {
                    outcome.errors.append("\(error)")
                }
            }
            return outcome
        }
    }
}
