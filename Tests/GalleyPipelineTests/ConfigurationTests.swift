import Foundation
import GalleyPipeline
import GalleyText
import GalleyRaster
import GalleyTestSupport
import Testing

@Suite struct ConfigurationTests {
    let base = URL(fileURLWithPath: "/srv/docs")

    func load(_ yaml: String) throws(ConfigurationError) -> Configuration {
        try Configuration.load(yaml: yaml, file: "pipeline.yml", baseDirectory: base)
    }

    func loadError(_ yaml: String) -> ConfigurationError? {
        do {
            _ = try load(yaml)
            return nil
        } catch {
            return error
        }
    }

    @Test func onlyInputsGivesDefaults() throws {
        let configuration = try load("inputs: [pdfs]\n")
        #expect(configuration.inputs == ["pdfs"])
        #expect(configuration.dpi == 150)
        #expect(configuration.thumbnailBoxes == [128, 256])
        #expect(configuration.png == .balanced)
        #expect(configuration.outputURL.path == "/srv/docs/out")
        #expect(configuration.resolveInput("pdfs").path == "/srv/docs/pdfs")
    }

    @Test func emptyFileGivesDefaults() throws {
        #expect(try load("") == { var c = Configuration(); c.baseDirectory = base; c.file = "pipeline.yml"; return c }())
    }

    @Test func everyKeyIsRead() throws {
        let configuration = try load("""
            inputs: scans
            output: /tmp/previews
            dpi: 96
            thumbnails: [512, 64]
            workers: {open: 1, render: 3, thumbnails: 2, encode: 4}
            max_pages_in_flight: 9
            png: small
            page_images: false
            page_timeout: 12.5
            passwords:
              "secret/*.pdf": hunter2
            fonts: [fonts, /usr/local/share/fonts]
            thumbnail_cache_size: 64
            watch_debounce: 0.5
            inbox: drop
            """)
        #expect(configuration.thumbnailCacheMiB == 64)
        #expect(configuration.watchDebounce == 0.5)
        #expect(configuration.inbox == "drop")
        #expect(configuration.inputs == ["scans"])
        #expect(configuration.outputURL.path == "/tmp/previews")
        #expect(configuration.dpi == 96)
        #expect(configuration.thumbnailBoxes == [64, 512])
        #expect(configuration.workers.open == 1 && configuration.workers.render == 3)
        #expect(configuration.workers.thumbnails == 2 && configuration.workers.encode == 4)
        #expect(configuration.maxPagesInFlight == 9)
        #expect(configuration.png == .small)
        #expect(configuration.pageImages == false)
        #expect(configuration.pageTimeout == 12.5)
        #expect(configuration.password(forRelativePath: "secret/a.pdf") == "hunter2")
        #expect(configuration.password(forRelativePath: "public/a.pdf") == nil)
        #expect(configuration.fontFolders == ["fonts", "/usr/local/share/fonts"])
    }

    @Test func unknownKeyNamesTheKeyAndLine() throws {
        let error = try #require(loadError("inputs: [a]\ndpi: 100\nthumbnail: [64]\n"))
        #expect(error.line == 3)
        #expect(error.key == "thumbnail")
        #expect(error.description.contains("pipeline.yml:3"))
        #expect(error.description.contains("thumbnails"), "lists the known keys")
    }

    /// A misspelled key names the key it is likely meant to be, not a list of every key.
    @Test func aMisspelledKeySuggestsTheNearest() throws {
        let error = try #require(loadError("inputs: [a]\ndpii: 100\n"))
        #expect(error.line == 2 && error.key == "dpii")
        #expect(error.message == "unknown key; did you mean dpi?", "\(error)")
        let layout = try #require(loadError("layouts:\n  - name: a4\n    font_sise: 11\n"))
        #expect(layout.message == "unknown layout key; did you mean font_size?", "\(layout)")
        // Nothing near: the known keys.
        let far = try #require(loadError("colour_scheme: dark\n"))
        #expect(far.message.contains("keys are inputs, output, dpi"), "\(far)")
    }

    /// libyaml's "cannot start any token" for a tab: the message names the tab and the line.
    @Test func aTabInTheIndentationIsNamed() throws {
        let error = try #require(loadError("inputs: [a]\nlayouts:\n\t- name: a4\n"))
        #expect(error.line == 3, "\(error)")
        #expect(error.message.contains("a tab in the indentation") && error.message.contains("spaces"), "\(error)")
    }

    @Test(arguments: [
        ("dpi: lots\n", "dpi", 1),
        ("dpi: 0\n", "dpi", 1),
        ("inputs: [a]\nthumbnail_cache_size: -1\n", "thumbnail_cache_size", 2),
        ("inputs: [a]\nwatch_debounce: soon\n", "watch_debounce", 2),
        ("inputs: [a]\ninbox: [x, y]\n", "inbox", 2),
        ("inputs: [a]\nthumbnails: [64, 64]\n", "thumbnails", 2),
        ("thumbnails: [4]\n", "thumbnails", 1),
        ("workers: {render: 0}\n", "workers.render", 1),
        ("workers: {paint: 2}\n", "workers.paint", 1),
        ("png: tiny\n", "png", 1),
        ("max_pages_in_flight: -3\n", "max_pages_in_flight", 1),
        ("inputs: {a: b}\n", "inputs", 1),
        ("output: ''\n", "output", 1),
        ("page_images: maybe\n", "page_images", 1),
        ("page_timeout: 0\n", "page_timeout", 1),
    ])
    func impossibleValuesAreRefused(yaml: String, key: String, line: Int) throws {
        let error = try #require(loadError(yaml))
        #expect(error.key == key)
        #expect(error.line == line)
    }

    @Test func passwordsCanComeFromTheEnvironment() throws {
        let yaml = "passwords:\n  secret.pdf: env:GALLEY_TEST_PASSWORD\n"
        let configuration = try Configuration.load(yaml: yaml, file: "pipeline.yml", baseDirectory: base,
                                                   environment: ["GALLEY_TEST_PASSWORD": "s3cret"])
        #expect(configuration.password(forRelativePath: "secret.pdf") == "s3cret")
        // Unset (a pull request from a fork gets no secrets): the file still loads, the rule
        // gives no password and remembers the variable for the failure of the documents that
        // need it.
        let unset = try Configuration.load(yaml: yaml, file: "pipeline.yml", baseDirectory: base, environment: [:])
        #expect(unset.password(forRelativePath: "secret.pdf") == nil)
        #expect(unset.passwordRule(forRelativePath: "secret.pdf")?.unsetVariable == "GALLEY_TEST_PASSWORD")
        #expect(loadError("passwords:\n  secret.pdf: 'env:'\n")?.line == 2, "env: without a name")
    }

    @Test func nothingToWriteIsRefused() {
        #expect(loadError("page_images: false\nthumbnails: []\n")?.key == "page_images")
    }

    @Test func notAMapIsRefused() {
        #expect(loadError("- just\n- a list\n") != nil)
        #expect(loadError("dpi: [\n") != nil, "invalid YAML")
    }

    @Test func repositoryPipelineFileLoads() throws {
        let file = Fixtures.repositoryRoot.appendingPathComponent("pipeline.yml")
        let configuration = try Configuration.load(file: file)
        #expect(configuration.file == file.path, "errors about a setting name the file")
        #expect(configuration.inputs == ["fixtures/pdf", "fixtures/articles", "fixtures/tables"])
        #expect(configuration.password(forRelativePath: "encrypted.pdf") == Fixtures.encryptedPassword)
        #expect(configuration.layouts.map(\.name) == ["portrait", "landscape"])
        #expect(configuration.layouts[1].pageWidth == 842 && configuration.layouts[1].columns == 3)
        // Written in inches: the same 18 pt gap and 54 pt inset as the defaults.
        #expect(configuration.layouts[0].columnGap == 18 && configuration.layouts[0].inset == ArticleLayout.Insets(all: 54))
    }

    @Test func layoutsAreReadWithDefaultsForWhatIsLeftOut() throws {
        let yaml = """
            layouts:
              - name: wide
                page: letter
                orientation: landscape
                columns: 2
                column_gap: 24
                column_fill: auto
                inset: {top: 20, left: 30}
                background: "#fafafa"
                color: "#333"
                font_family: DejaVu Sans
                font_size: 9.5
                line_height: 1.4
                language: ja
                justify_threshold: 0.85
                hyphenation: true
                hyphenate_before: 3
                hyphenate_after: 4
                max_hyphenated_lines: 3
                max_letter_spacing: 0
                line_breaking: optimal
                vertical: true
                preformatted_marker: "↪"
              - name: custom
                page: [400, 600]
            """
        let configuration = try Configuration.load(yaml: yaml, file: "p.yml", baseDirectory: URL(fileURLWithPath: "/"))
        let wide = configuration.layouts[0]
        #expect(wide.pageWidth == 792 && wide.pageHeight == 612 && wide.columns == 2)
        #expect(wide.inset.top == 20 && wide.inset.left == 30 && wide.inset.right == 54)
        #expect(wide.background == RGBColor(r: 250, g: 250, b: 250) && wide.base.color == RGBColor(r: 51, g: 51, b: 51))
        #expect(wide.columnGap == 24 && wide.columnFill == .auto)
        #expect(wide.base.fontFamily == "DejaVu Sans" && wide.base.fontSize == 9.5 && wide.base.lineHeight == 1.4)
        #expect(wide.base.language == "ja")
        #expect(wide.typography.justifyThreshold == 0.85 && wide.base.hyphens == .auto)
        #expect(wide.typography.hyphenateBefore == 3 && wide.typography.hyphenateAfter == 4 && wide.typography.maximumConsecutiveHyphens == 3)
        #expect(wide.typography.lineBreaking == .optimal && wide.typography.continuationMarker == "↪")
        #expect(wide.typography.maximumLetterSpacing == 0)
        #expect(wide.writingMode == .verticalRL)
        let custom = configuration.layouts[1]
        #expect(custom.pageWidth == 400 && custom.pageHeight == 600 && custom.columns == 1 && custom.base.fontFamily == "DejaVu Serif")
        // Justification off, hyphens only at soft hyphens, unless asked for.
        #expect(custom.typography.justifyThreshold == 1 && custom.base.hyphens == .manual)
        #expect(custom.typography.hyphenateBefore == 2 && custom.typography.hyphenateAfter == 3 && custom.typography.maximumConsecutiveHyphens == 2)
        #expect(custom.writingMode == .horizontalTB && custom.typography.continuationMarker == nil)
        #expect(custom.typography.maximumLetterSpacing == 0.04 && custom.columnFill == .balance)
        #expect(try Configuration.load(yaml: "dpi: 72\n", file: "p.yml", baseDirectory: URL(fileURLWithPath: "/")).layouts.map(\.name) == ["a4"])
    }

    @Test func badLayoutsAreRefusedWithTheirLine() {
        let cases: [(String, String)] = [
            ("layouts:\n  - columns: 2\n", "layouts"),
            ("layouts:\n  - name: a/b\n", "layouts.name"),
            ("layouts:\n  - name: x\n  - name: X\n", "layouts.X"),
            ("layouts:\n  - name: x\n    page: a9\n", "layouts.x.page"),
            ("layouts:\n  - name: x\n    columns: 13\n", "layouts.x.columns"),
            ("layouts:\n  - name: x\n    columns: 12\n    column_gap: 60\n", "layouts.x"),
            ("layouts:\n  - name: x\n    column_fill: even\n", "layouts.x.column_fill"),
            ("layouts:\n  - name: x\n    background: mauve-ish\n", "layouts.x.background"),
            ("layouts:\n  - name: x\n    leading: 2\n", "layouts.x.leading"),
            ("layouts:\n  - name: x\n    justify_threshold: 1.5\n", "layouts.x.justify_threshold"),
            ("layouts:\n  - name: x\n    hyphenation: sometimes\n", "layouts.x.hyphenation"),
            ("layouts:\n  - name: x\n    hyphenate_after: 0\n", "layouts.x.hyphenate_after"),
            ("layouts:\n  - name: x\n    max_hyphenated_lines: 0\n", "layouts.x.max_hyphenated_lines"),
            ("layouts:\n  - name: x\n    line_breaking: best\n", "layouts.x.line_breaking"),
            ("layouts:\n  - name: x\n    max_letter_spacing: 0.5\n", "layouts.x.max_letter_spacing"),
            ("layouts:\n  - name: x\n    vertical: rl\n", "layouts.x.vertical"),
            ("layouts:\n  - name: x\n    preformatted_marker: '->'\n", "layouts.x.preformatted_marker"),
            ("layouts:\n  - name: x\n    preformatted_marker: ' '\n", "layouts.x.preformatted_marker"),
            ("layouts: []\n", "layouts"),
        ]
        for (yaml, key) in cases {
            let error = loadError(yaml)
            #expect(error?.key == key, "\(yaml.debugDescription): \(String(describing: error))")
            #expect(error?.line != nil)
        }
    }

    @Test(arguments: [
        ("inputs: [a]\ndpi: 72\ndpi: 96\n", "dpi", 3, [2, 3]),
        ("workers:\n  open: 1\n  render: 2\n  open: 2\n", "workers.open", 4, [2, 4]),
        ("workers: {open: 1, open: 2}\n", "workers.open", 1, [1]),
        ("passwords:\n  a.pdf: x\n  'a.pdf': y\n", "passwords.a.pdf", 3, [2, 3]),
        ("layouts:\n  - name: wide\n    columns: 2\n    font_size: 9\n    columns: 3\n", "layouts.wide.columns", 5, [3, 5]),
        ("layouts:\n  - name: wide\n    inset: {top: 1, top: 2}\n", "layouts.wide.inset.top", 3, [3]),
        ("layouts:\n  - name: a\n    name: b\n", "layouts.a.name", 3, [2, 3]),
    ])
    func aKeyWrittenTwiceNamesBothLines(yaml: String, key: String, line: Int, lines: [Int]) throws {
        let error = try #require(loadError(yaml))
        #expect(error.key == key)
        #expect(error.line == line)
        #expect(error.message.contains("twice"), "\(error)")
        for mentioned in lines { #expect(error.message.contains("\(mentioned)"), "\(error)") }
    }

    @Test func aKeyInTwoDifferentMapsIsNotADuplicate() throws {
        let configuration = try load("""
            workers: {open: 1}
            layouts:
              - name: a
                columns: 2
              - name: b
                columns: 3
            """)
        #expect(configuration.layouts.map(\.columns) == [2, 3])
        #expect(configuration.workers.open == 1)
    }

    /// Forms YAML 1.1, YAML 1.2 or `Double(_:)` would read as numbers, each differently.
    @Test(arguments: [
        "dpi: 0x48", "dpi: 0o110", "dpi: 072", "dpi: 1e3", "dpi: 7.2e1", "dpi: .inf", "dpi: .nan", "dpi: inf",
        "dpi: 1_000", "dpi: 1:12", "dpi: 72.", "dpi: .5", "dpi: 0x1p6", "dpi: 72 dpi",
        "thumbnails: [64.0]", "thumbnails: [0x40]", "max_pages_in_flight: 1e3", "workers: 0b10",
        "workers: {open: 2.0}", "thumbnail_cache_size: 012",
        "layouts: [{name: x, columns: 2.5}]", "layouts: [{name: x, font_size: 1e1}]",
    ])
    func numbersAreWrittenInDecimal(yaml: String) throws {
        let error = try #require(loadError(yaml + "\n"))
        #expect(error.line == 1)
        #expect(error.message.contains("decimal"), "\(error)")
    }

    @Test func decimalNumbersAreRead() throws {
        let configuration = try load("dpi: 72.5\npage_timeout: 0.25\nthumbnails: [+64, 128]\n")
        #expect(configuration.dpi == 72.5)
        #expect(configuration.pageTimeout == 0.25)
        #expect(configuration.thumbnailBoxes == [64, 128])
        // A sign is read, so a negative value is refused for its range, not its form.
        #expect(loadError("max_pages_in_flight: -3\n")?.message.contains("outside") == true)
        #expect(try load("watch_debounce: 0\n").watchDebounce == 0)
    }

    /// A byte order mark before the first key, a comment or a list: the file means what it
    /// means without one. Before, a mark followed by a key and more lines was "not valid YAML"
    /// (the mark was read as part of the first key), and only a comment on line 1 hid it.
    @Test(arguments: [
        "dpi: 96\n",
        "inputs: [in]\noutput: out\ndpi: 96\n",
        "# Galley\ninputs: [in]\noutput: out\ndpi: 96\n",
        "inputs:\n  - in\noutput: out\ndpi: 96\n",
        "\ninputs: [in]\ndpi: 96\n",
    ])
    func aByteOrderMarkIsFine(_ yaml: String) throws {
        let folder = try ScratchFolder()
        let file = folder.path("pipeline.yml")
        try Data(Array(yaml.utf8)).write(to: file)
        let plain = try Configuration.load(file: file)
        try Data([0xEF, 0xBB, 0xBF] + Array(yaml.utf8)).write(to: file)
        let marked = try Configuration.load(file: file)
        #expect(marked.dpi == 96 && marked.inputs == plain.inputs && marked.output == plain.output)
        #expect(try load("\u{FEFF}" + yaml).inputs == plain.inputs, "text handed over with its mark reads the same")
    }

    @Test(arguments: [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00], "byte 0x89 is not UTF-8"),
        (Array("dpi: 96\n# caf".utf8) + [0xE9] + Array("\n".utf8), "line 2: byte 0xE9"),
        (Array("dpi: 96\n\0\0\0".utf8), "line 2 holds a NUL byte"),
        ([0xFF, 0xFE, 0x64, 0x00, 0x70, 0x00], "UTF-16"),
    ] as [([UInt8], String)])
    func aFileThatIsNotTextSaysSo(bytes: [UInt8], reason: String) throws {
        let folder = try ScratchFolder()
        let file = folder.path("pipeline.yml")
        try Data(bytes).write(to: file)
        do {
            _ = try Configuration.load(file: file)
            Issue.record("\(reason): loaded")
        } catch {
            #expect(error.description.hasPrefix("\(file.path): not a text file"), "\(error)")
            #expect(error.message.contains(reason), "\(error)")
            #expect(!error.message.contains("--config"), "the file exists: no advice to pass one")
        }
    }

    @Test func aControlCharacterIsRefusedWithItsLine() throws {
        let error = try #require(loadError("inputs: [a]\ndpi: 96\u{1B}[0m\n"))
        #expect(error.line == 2)
        #expect(error.message.contains("U+001B"))
    }

    /// Texts nested thousands of levels deep (the user's `x: [[[[…]]]]` overflowed the stack at
    /// 5,000) in flow and block style, and the line where the limit is passed.
    static let deeplyNested: [(String, Int)] = {
        func indented(_ line: (Int) -> String) -> String {
            "x:\n" + (0..<3000).map { String(repeating: " ", count: $0 + 1) + line($0) + "\n" }.joined()
        }
        let brackets = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        let maps = String(repeating: "{a: ", count: 5000) + "b" + String(repeating: "}", count: 5000)
        return [
            ("x: " + brackets + "\n", 1),
            ("x: " + maps + "\n", 1),
            (indented { _ in "-" }, 33),
            (indented { "k\($0):" }, 33),
            ("- " + String(repeating: "- ", count: 4000) + "x\n", 1),
            ("inputs: [a]\nlayouts:\n  - name: x\n    inset: " + String(repeating: "[", count: 40) + "\n", 4),
        ]
    }()

    @Test(arguments: deeplyNested)
    func deepNestingIsRefusedBeforeItIsParsed(yaml: String, line: Int) throws {
        let error = try #require(loadError(yaml))
        #expect(error.line == line)
        #expect(error.message.contains("nest more than 32 levels"), "\(error)")
    }

    @Test func nestingWithinTheLimitAndBracketsInTextAreRead() throws {
        // Brackets inside quoted, plain and block text are not structure.
        let configuration = try load("""
            inputs: ["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", '{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{', "a'[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["]
            passwords:
              "x.pdf": |
                [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
                 - - - - - - - - - - - - - - - - - - - - - - - - - -
              y.pdf: a[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ # [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
            """)
        #expect(configuration.inputs.count == 3 && configuration.inputs[0].hasPrefix("[[[["))
        #expect(configuration.password(forRelativePath: "x.pdf")?.hasPrefix("[[[[") == true)
        #expect(configuration.password(forRelativePath: "y.pdf")?.hasPrefix("a[[[[") == true)
        // 30 levels are parsed; the unknown key is then the error.
        let error = try #require(loadError("x: " + String(repeating: "[", count: 30) + String(repeating: "]", count: 30) + "\n"))
        #expect(error.key == "x" && error.message.contains("unknown key"))
    }

    @Test(arguments: ["base: &b 72\ndpi: *b\n", "dpi: !!int 72\n", "%YAML 1.1\n---\ndpi: 72\n"])
    func anchorsAliasesTagsAndDirectivesAreRefused(yaml: String) throws {
        let error = try #require(loadError(yaml))
        #expect(error.line != nil)
        #expect(error.message.contains("anchors, aliases, tags and directives"), "\(error)")
    }
}
