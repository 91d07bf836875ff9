import Foundation
import GalleyTestSupport
import Testing

/// Every command `galley --help` lists and every key `pipeline.yml` takes (as the
/// configuration reader knows them: its message for an unknown key lists them) is documented
/// in docs/, so a new option cannot land undocumented.
@Suite struct DocumentationTests {
    let command = GalleyCommandTests()

    func document(_ name: String) throws -> String {
        try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/\(name)"), encoding: .utf8)
    }

    /// The names after "are " in the reader's message for a key no one would misspell into.
    func knownKeys(_ yaml: String) throws -> [String] {
        let folder = try command.folderWithConfig(yaml, files: [])
        let outcome = try command.galley(["run"], in: folder.url)
        #expect(outcome.status == 2)
        let list = try #require(outcome.stderr.components(separatedBy: "s are ").last?.components(separatedBy: "\n").first)
        return list.components(separatedBy: ", ").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func everyPipelineKeyIsDocumented() throws {
        let reference = try document("pipeline.md")
        let top = try knownKeys("qqqqqqqqqqqqqqqqqqqq: 1\n")
        let layout = try knownKeys("layouts:\n  - name: a\n    qqqqqqqqqqqqqqqqqqqq: 1\n")
        #expect(top.count > 15 && top.contains("dpi") && layout.count > 15 && layout.contains("columns"), "\(top) \(layout)")
        for key in top + layout {
            #expect(reference.contains("`\(key)`"), "pipeline.yml key \(key) is not in docs/pipeline.md")
        }
    }

    @Test func everyCommandIsDocumented() throws {
        let folder = try ScratchFolder()
        let help = try command.galley(["--help"], in: folder.url).stdout
        let section = try #require(help.components(separatedBy: "SUBCOMMANDS:").last)
        let commands = section.components(separatedBy: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }.filter { $0 != "help" && $0.first?.isLowercase == true }
        #expect(commands.count >= 9 && commands.contains("diff"), "\(commands)")
        let reference = try document("command-line.md")
        for name in commands {
            #expect(reference.contains("galley \(name)"), "galley \(name) is not in docs/command-line.md")
        }
    }
}
