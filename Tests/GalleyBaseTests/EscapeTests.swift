import Foundation
import GalleyBase
import GalleyTestSupport
import Testing

/// Names from files reach terminals, logs, Markdown and HTML only as text.
@Suite struct EscapeTests {
    /// The names of files as `ls -b` lists them: the terminal escape shows a name the same way.
    @Test func terminalShowsNamesAsLsDashBDoes() throws {
        let folder = try ScratchFolder("escape-ls")
        let names = ["fail\n::error title=INJECTED::x.pdf", "bell\u{07}tab\tcr\r.pdf", "\u{1B}]0;title\u{07}\u{1B}[31mred.pdf",
                     "del\u{7F}c1\u{85}.pdf", "plain name é ü 日本.pdf"]
        for name in names { try Data().write(to: folder.path(name)) }
        let listed = try PeerTools.run("ls", ["-b", "-1"], in: folder.url, environment: ["LC_ALL": "C.UTF-8"])
        #expect(listed.status == 0)
        // ls -b also escapes spaces, which a line of text shows as they are.
        let shown = listed.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: "\\ ", with: " ") }
        #expect(shown.sorted() == names.map(Escape.terminal).sorted(), "\(listed.stdout)")
        for name in names { #expect(!Escape.terminal(name).unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) }
    }

    @Test func terminalShowsBidirectionalControlsThatWouldReorderALine() {
        let shown = Escape.terminal("invoice\u{202E}fdp.exe")
        #expect(shown == "invoice\\342\\200\\256fdp.exe")
        #expect(Escape.terminal("ordinary text, unchanged") == "ordinary text, unchanged")
    }

    /// Markdown in a name or message stays text: no image, link, HTML, heading or table cell
    /// can start from it.
    @Test func markdownLeavesNoSyntaxActive() {
        let hostile = "x](http://evil.example) ![p](http://evil.example/p.png) <img src=x> | cell\n# heading &amp;"
        let shown = Escape.markdown(hostile)
        #expect(!shown.contains("\n"))
        // Every character Markdown reads as syntax follows a backslash.
        let characters = Array(shown)
        for (index, character) in characters.enumerated() where "[]()!<>|#&".contains(character) {
            #expect(index > 0 && characters[index - 1] == "\\", "unescaped \(character) in \(shown)")
        }
    }

    /// A code span shows a name as it is: no backslashes added (GitHub shows them literally in
    /// code), fenced past the backticks inside, `|` escaped for tables.
    @Test func markdownCodeShowsNamesAsTheyAre() {
        #expect(Escape.markdownCode("pdfa2b-ocrmypdf-graph.pdf") == "`pdfa2b-ocrmypdf-graph.pdf`")
        #expect(Escape.markdownCode("a`b``c.pdf") == "```a`b``c.pdf```")
        #expect(Escape.markdownCode("`tick.pdf") == "`` `tick.pdf ``")
        #expect(Escape.markdownCode("a|b\nc.pdf") == "`a\\|b\\nc.pdf`")
    }

    @Test func htmlShowsControlCharactersAndEscapesMarkup() {
        #expect(Escape.html("<b>\"x\" & \u{1B}[31m</b>") == "&lt;b&gt;&quot;x&quot; &amp; \\033[31m&lt;/b&gt;")
    }

    /// A workflow command stays one line: line breaks are percent-encoded (GitHub decodes them
    /// in the annotation), other controls shown as escapes.
    @Test func workflowCommandsStayOneLine() {
        #expect(Escape.workflowData("a\nb\r%\u{1B}") == "a%0Ab%0D%25\\033")
        #expect(Escape.workflowProperty("docs/a, b:c.pdf") == "docs/a%2C b%3Ac.pdf")
    }
}
