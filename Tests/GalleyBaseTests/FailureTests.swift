import Foundation
import GalleyBase
import GalleyTestSupport
import Testing

/// The one failure vocabulary: what users match on in manifests and CI scripts.
struct FailureTests {
    /// The codes the table of docs/guide.md lists, in its order.
    static func readmeCodes() throws -> [String] {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/guide.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "## Failure codes"))
        var codes: [String] = []
        for line in lines[start...].dropFirst() {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("| `") else { continue }
            codes.append(String(line.dropFirst(3).prefix { $0 != "`" }))
        }
        return codes
    }

    /// The codes the manifest schema allows for a document's error, in its order.
    static func schemaCodes() throws -> [String] {
        let data = try Data(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("schemas/manifest.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let document = try #require((schema["$defs"] as? [String: Any])?["document"] as? [String: Any])
        let error = try #require((document["properties"] as? [String: Any])?["error"] as? [String: Any])
        let code = try #require((error["properties"] as? [String: Any])?["code"] as? [String: Any])
        return try #require(code["enum"] as? [String])
    }

    @Test func theReadmeTableTheSchemaAndTheCodesAgree() throws {
        let codes = Failure.Code.documented.map(\.rawValue)
        #expect(codes.count == Set(codes).count, "a code is listed twice")
        #expect(try Self.readmeCodes() == codes)
        #expect(try Self.schemaCodes() == codes)
        for code in codes {
            #expect(code.range(of: "^[a-z]+(-[a-z]+)*$", options: .regularExpression) != nil, "\(code) is not kebab-case")
        }
    }

    /// A code is spelled once, in `Failure.Code`: no source file has one as a string literal, so
    /// a stage cannot report a code the README and schema do not know.
    @Test func noSourceSpellsACodeOutsideItsStruct() throws {
        let codes = Failure.Code.documented.map(\.rawValue) + [Failure.Code.cancelled, .invalidSize, .decodeFailed].map(\.rawValue)
        let sources = Fixtures.repositoryRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && $0 != "GalleyBase/Failure.swift" }
        #expect(files.count > 50, "the sources were not found")
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for code in codes {
                #expect(!text.contains("\"\(code)\""), "\(file) spells the failure code \(code)")
            }
        }
    }

    @Test func aFailureIsWrittenWithItsCodeAsAString() throws {
        let failure = Failure(code: .timedOut, message: "page 3 took too long", page: 3)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(failure), as: UTF8.self)
        #expect(json == #"{"code":"timed-out","message":"page 3 took too long","page":3}"#)
        #expect(try JSONDecoder().decode(Failure.self, from: Data(json.utf8)) == failure)
    }

    @Test func anErrorBecomesItsFailureOnThePageGiven() {
        let written = Failure(OutputError(path: "/out/a/page-0001.png", message: "cannot write: No space left on device"), page: 1)
        #expect(written.code == .writeFailed && written.page == 1)
        #expect(written.message == "/out/a/page-0001.png: cannot write: No space left on device")
        // A failure keeps the page it named; an unknown error is a page that could not be drawn.
        let timed = Failure(code: .timedOut, message: "slow", page: 4)
        #expect(Failure(timed, page: 9) == timed)
        struct Unknown: Error {}
        #expect(Failure(Unknown(), page: 2).code == .renderFailed)
    }
}
