import Foundation
import GalleyTestSupport
import Testing

/// What a CI job sees of a run: GitHub annotations on the files that failed, a step summary,
/// a JUnit report its test tab can read. Runs the built galley with GitHub's variables set, as
/// its runners set them, and reads what it wrote.
@Suite struct CIReportTests {
    let command = GalleyCommandTests()

    /// A workspace with a good PDF, a damaged one (warnings) and a file that is not a PDF,
    /// whose name holds the characters workflow commands escape.
    func workspace() throws -> ScratchFolder {
        let folder = try command.folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: []\n",
                                                  files: [Fixtures.pdf("article.pdf"), Fixtures.pdf("damaged-content.pdf")])
        try FileManager.default.copyItem(at: Fixtures.brokenFolder.appendingPathComponent("garbage.pdf"),
                                         to: folder.path("docs/bad, name:1.pdf"))
        return folder
    }

    func github(_ folder: ScratchFolder, _ extra: [String] = []) throws -> PeerTools.Outcome {
        try PeerTools.run(GalleyCommandTests.binary.path, ["run", "--junit", "reports/junit.xml"] + extra, in: folder.url,
                          environment: ["GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": folder.url.path,
                                        "GITHUB_STEP_SUMMARY": folder.path("summary.md").path])
    }

    @Test func githubGetsAnnotationsASummaryAndJUnit() throws {
        let folder = try workspace()
        try "earlier step\n".write(to: folder.path("summary.md"), atomically: true, encoding: .utf8)
        let outcome = try github(folder)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        // One error for the failed file, by its path in the workspace, properties escaped.
        let errors = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        #expect(errors.count == 1, "\(outcome.stdout)")
        #expect(errors.first?.hasPrefix("::error file=docs/bad%2C name%3A1.pdf,title=galley%3A not-pdf::bad, name:1.pdf: ") == true,
                "\(errors)")
        #expect(errors.first?.contains("no %25PDF header") == true, "a % in the message is escaped: \(errors)")
        let warnings = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("::warning file=docs/damaged-content.pdf,") }
        #expect(warnings.count == 2, "\(outcome.stdout)")

        // The step summary is appended to, never replaced.
        let summary = try String(contentsOf: folder.path("summary.md"), encoding: .utf8)
        #expect(summary.hasPrefix("earlier step\n### "), "\(summary)")
        #expect(summary.contains("3 documents, 1 failed"))
        #expect(summary.contains("| `docs/bad, name:1.pdf` | `not-pdf` |"), "\(summary)")
        #expect(summary.contains("Slowest documents") && summary.contains("`docs/article.pdf` | 4 |"), "\(summary)")

        // JUnit, read by an XML parser of its own: a case per document, the failure typed by its code.
        let report = try PeerTools.run("python3", ["-c", """
            import sys, xml.etree.ElementTree as ET
            suite = ET.parse(sys.argv[1]).getroot().find('testsuite')
            print(suite.get('tests'), suite.get('failures'))
            for case in suite.findall('testcase'):
                failure = case.find('failure')
                out = case.find('system-out')
                print(case.get('classname'), '|', case.get('name'), '|', failure.get('type') if failure is not None else '-',
                      '|', len(out.text.splitlines()) if out is not None else 0)
            """, folder.path("reports/junit.xml").path])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout == """
            3 1
            docs | article.pdf | - | 0
            docs | bad, name:1.pdf | not-pdf | 0
            docs | damaged-content.pdf | - | 2

            """, "\(report.stdout)")
    }

    /// A configuration mistake stops the run (exit 2) before any document: the job still gets
    /// an error on the file's line, a step summary and a JUnit file saying why.
    @Test func aConfigurationMistakeIsReportedToCI() throws {
        let folder = try ScratchFolder("ci-config")
        try FileManager.default.createDirectory(at: folder.path("docs"), withIntermediateDirectories: true)
        try "inputs: [.]\ndpi: lots\n".write(to: folder.path("docs/pipeline.yml"), atomically: true, encoding: .utf8)
        let outcome = try github(folder, ["--config", "docs/pipeline.yml"])
        #expect(outcome.status == 2, "\(outcome.stderr)")
        let errors = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        #expect(errors.count == 1 && errors.first?.hasPrefix("::error file=docs/pipeline.yml,line=2,title=galley%3A configuration::") == true,
                "\(outcome.stdout)")
        let summary = try String(contentsOf: folder.path("summary.md"), encoding: .utf8)
        #expect(summary.contains("Galley: stopped") && summary.contains("`docs/pipeline.yml:2`") && summary.contains("dpi"), "\(summary)")
        let report = try PeerTools.run("python3", ["-c", """
            import sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            case = root.find('testsuite').find('testcase')
            print(root.get('tests'), root.get('errors'), case.get('name'), case.find('error').get('type'))
            """, folder.path("reports/junit.xml").path])
        #expect(report.stdout == "1 1 configuration configuration\n", "\(report.stdout) \(report.stderr)")
    }

    /// Names and warnings planted to inject workflow commands, terminal sequences and Markdown:
    /// the job log gets no line Galley did not mean as a command, no control character reaches
    /// the terminal, the summary or the contact sheet, and the summary shows no image or link.
    @Test func plantedNamesAndPicturesInjectNothing() throws {
        let injected = "fail\n::error title=INJECTED::x.pdf", terminal = "\u{1B}]0;pwned\u{07}\u{1B}[2Jclear.pdf"
        let folder = try command.folderWithConfig("inputs: [docs]\ndpi: 18\nthumbnails: []\nlayouts:\n  - name: one\n",
                                                  files: [Fixtures.pdf("article.pdf")])
        try FileManager.default.copyItem(at: folder.path("docs/article.pdf"), to: folder.path("docs/\(injected)"))
        try FileManager.default.copyItem(at: Fixtures.brokenFolder.appendingPathComponent("garbage.pdf"), to: folder.path("docs/\(terminal)"))
        try "<p>Text <img src=\"x.png)![pwned](http://evil.example/p.png)[link](http://evil.example\"> and more.</p>"
            .write(to: folder.path("docs/story.html"), atomically: true, encoding: .utf8)
        let outcome = try github(folder, ["--progress", "plain"])
        #expect(outcome.status == 1, "\(outcome.stderr)")
        for (stream, text) in [("stdout", outcome.stdout), ("stderr", outcome.stderr)] {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) where line.hasPrefix("::") {
                #expect(line.hasPrefix("::error file=") || line.hasPrefix("::warning file="), "\(stream): \(line)")
            }
            #expect(!text.contains("\u{1B}") && !text.contains("\u{07}"), "\(stream) carries a terminal sequence")
        }
        #expect(outcome.stderr.contains("] fail\\n::error title=INJECTED::x.pdf → "), "the progress line shows the name escaped: \(outcome.stderr)")
        let summary = try String(contentsOf: folder.path("summary.md"), encoding: .utf8)
        #expect(!summary.contains("\u{1B}") && !summary.contains("![pwned]") && !summary.contains("[link](http"), "\(summary)")
        #expect(summary.contains("| `docs/fail\\n::error title=INJECTED::x.pdf` | 4 |"), "the name as it is in a code span: \(summary)")
        #expect(summary.contains("x\\.png\\)\\!\\[pwned\\]"), "the picture's warning is in the summary, escaped: \(summary)")
        let sheet = try String(contentsOf: folder.path("out/index.html"), encoding: .utf8)
        #expect(!sheet.contains("\u{1B}") && sheet.contains("\\033]0;pwned"), "the contact sheet shows the escape as text")
    }

    /// With JSON progress on standard output, annotations go to standard error so every line
    /// of standard output stays JSON; outside GitHub (and with --annotations none) there are none.
    @Test func annotationsKeepJSONProgressIntactAndAppearOnlyOnGitHub() throws {
        let folder = try workspace()
        let json = try github(folder, ["--progress", "json"])
        #expect(json.status == 1)
        #expect(json.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{") }, "\(json.stdout)")
        #expect(json.stderr.contains("::error file=docs/bad%2C name%3A1.pdf"), "\(json.stderr)")

        let plain = try PeerTools.run(GalleyCommandTests.binary.path, ["run", "--force"], in: folder.url,
                                      environment: ["GITHUB_ACTIONS": "false", "GITHUB_STEP_SUMMARY": folder.path("none.md").path])
        #expect(plain.status == 1)
        #expect(!plain.stdout.contains("::error") && !plain.stderr.contains("::error"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("none.md").path))
        let off = try github(folder, ["--annotations", "none", "--force"])
        #expect(!off.stdout.contains("::error"))
    }
}
