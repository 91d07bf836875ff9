import Foundation
import GalleyTestSupport
import GalleyText
import Testing

/// Layout as data: line breaks, line boxes, baselines and column ranges serialized to JSON
/// and compared with goldens in `Goldens/`, made with the fonts `scripts/install-deps.sh`
/// installs (DejaVu, Noto CJK). Re-record after an intended change with
/// `RECORD_GOLDENS=1 bash scripts/test.sh` and review the diff.
enum LayoutGolden {
    static let folder = Fixtures.repositoryRoot.appendingPathComponent("Tests/GalleyTextTests/Goldens")

    /// Points rounded to 1/100: finer than any visible difference, coarse enough to ignore
    /// float noise.
    static func round(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    static func serialize(_ pages: [TypesetPage], text: AttributedText) -> [UInt8] {
        let object: [[String: Any]] = pages.map { page in
            [
                "number": page.number,
                "columns": page.columns.map { column -> [String: Any] in
                    [
                        "rect": [round(column.rect.x), round(column.rect.y), round(column.rect.width), round(column.rect.height)],
                        "range": [column.range.lowerBound, column.range.upperBound],
                        "lines": column.lines.map { line -> [String: Any] in
                            var object: [String: Any] = [
                                "range": [line.range.lowerBound, line.range.upperBound],
                                "text": text.string(line.range),
                                "x": round(line.rect.x), "width": round(line.rect.width),
                                "top": round(line.rect.y), "height": round(line.rect.height), "baseline": round(line.baseline),
                            ]
                            // Justified and hyphenated lines also record where each glyph went.
                            if line.isJustified { object["justified"] = true }
                            if line.isHyphenated { object["hyphenated"] = true }
                            if line.isLoose { object["loose"] = true }
                            if page.writingMode.isVertical {
                                // Every glyph of a vertical line, where its vertical metrics and
                                // forms put it.
                                object["glyphs"] = page.placedGlyphs.filter {
                                    $0.x >= line.rect.x - 0.01 && $0.x <= line.rect.maxX + 0.01 && $0.y >= line.rect.y - 0.01 && $0.y <= line.rect.maxY + 0.01
                                }.map { [round($0.x), round($0.y)] }
                            } else if line.isJustified || line.isHyphenated {
                                object["glyph_x"] = page.placedGlyphs.filter { abs($0.y - line.baseline) < 0.01 }.map { round($0.x) }
                            }
                            return object
                        },
                    ]
                },
                "attachments": page.attachments.map { attachment -> [String: Any] in
                    var object: [String: Any] = ["column": attachment.column, "offset": attachment.offset,
                                                 "rect": [round(attachment.rect.x), round(attachment.rect.y), round(attachment.rect.width), round(attachment.rect.height)]]
                    if let float = attachment.float { object["float"] = float.rawValue }
                    return object
                },
            ].merging(tables(of: page)) { first, _ in first }.merging(blocks(of: page)) { first, _ in first }
        }
        // Sorted keys and no escaped slashes keep the files stable and readable in diffs.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Array(data) + [0x0A]
    }

    /// Pieces of tables with their cells, for pages that have any (pages without keep the
    /// goldens they had before tables were set as grids).
    static func tables(of page: TypesetPage) -> [String: Any] {
        let pieces = page.columns.enumerated().flatMap { index, column in
            column.tables.map { table -> [String: Any] in
                func rect(_ r: Rect) -> [Double] { [round(r.x), round(r.y), round(r.width), round(r.height)] }
                return ["column": index, "table": table.table, "rect": rect(table.rect), "rows": [table.rows.lowerBound, table.rows.upperBound],
                        "scale": round(table.scale),
                        "cells": table.cells.map { cell -> [String: Any] in
                            ["row": cell.row, "column": cell.column, "span": [cell.rowSpan, cell.columnSpan], "rect": rect(cell.rect),
                             "range": [cell.range.lowerBound, cell.range.upperBound], "repeated": cell.isRepeatedHeader]
                        }]
            }
        }
        return pieces.isEmpty ? [:] : ["tables": pieces]
    }

    /// Pieces of boxes and floated blocks, for pages that have any (pages without keep the
    /// goldens they had before boxes and floats were set).
    static func blocks(of page: TypesetPage) -> [String: Any] {
        func rect(_ r: Rect) -> [Double] { [round(r.x), round(r.y), round(r.width), round(r.height)] }
        var object: [String: Any] = [:]
        let boxes = page.columns.enumerated().flatMap { index, column in
            column.boxes.map { ["column": index, "box": $0.box, "rect": rect($0.rect), "starts": $0.startsHere, "ends": $0.endsHere] as [String: Any] }
        }
        if !boxes.isEmpty { object["boxes"] = boxes }
        let floats = page.columns.enumerated().flatMap { index, column in
            column.floats.map {
                ["column": index, "block": $0.block, "side": $0.side.rawValue, "rect": rect($0.rect),
                 "range": [$0.range.lowerBound, $0.range.upperBound]] as [String: Any]
            }
        }
        if !floats.isEmpty { object["floated_blocks"] = floats }
        return object
    }

    /// Compares with the golden `name.json`, or records it when `RECORD_GOLDENS` is set.
    static func check(_ name: String, _ pages: [TypesetPage], text: AttributedText, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let actual = serialize(pages, text: text)
        let url = folder.appendingPathComponent("\(name).json")
        if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] != nil {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(actual).write(to: url)
            // Recording compares nothing: a run that records must not pass as a check.
            Issue.record("recorded \(url.path); review the diff and run again without RECORD_GOLDENS", sourceLocation: sourceLocation)
            return
        }
        guard let expected = FileManager.default.contents(atPath: url.path) else {
            Issue.record("no golden \(url.path); record it with RECORD_GOLDENS=1", sourceLocation: sourceLocation)
            return
        }
        if Array(expected) != actual {
            let dump = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).actual.json")
            try Data(actual).write(to: dump)
            Issue.record("layout of \(name) differs from its golden; compare with: diff \(url.path) \(dump.path)", sourceLocation: sourceLocation)
        }
    }
}

private func layout(_ name: String, columns: Int, width: Double = 595, height: Double = 842) -> ArticleLayout {
    var layout = ArticleLayout(name: name)
    layout.columns = columns
    layout.pageWidth = width
    layout.pageHeight = height
    return layout
}

@Test func latinTwoColumnsMatchesGolden() throws {
    var style = ParagraphStyle()
    style.lineHeight = 1.2
    style.spaceAfter = 6
    let text = testText([
        "A framesetter fills one rectangle at a time from a text position and reports the range that fit. Columns and pages are a cascade of rectangles, each filled from where the last one stopped.",
        "Lines are broken at the opportunities of UAX #14: after spaces, after hyphens-in-words, never before a closing parenthesis (like this) or a no-break\u{00A0}space.",
        "Superlongwordswithoutanyspacesatallmustbebrokenbetweenclustersratherthanoverflowingthecolumnedge.",
    ], paragraphStyle: style)
    let pages = try typesetAll(text, layout("latin", columns: 2, width: 420, height: 300), fonts: sharedFonts)
    try LayoutGolden.check("latin-two-columns", pages, text: text)
}

@Test func chineseAndJapaneseMatchGolden() throws {
    var style = ParagraphStyle()
    style.lineHeight = 1.3
    let chinese = testText(["排版是指将文字、图片、图形等可视化信息元素在版面布局上调整位置、大小，使版面布局条理化的过程。「引用」在这里，（括号）也在这里。版面设计123与English混排。"],
                           language: "zh-Hans", paragraphStyle: style)
    try LayoutGolden.check("chinese", try typesetAll(chinese, layout("zh", columns: 1, width: 300, height: 400), fonts: sharedFonts), text: chinese)
    let japanese = testText(["日本語の組版では、句読点や括弧類が行頭に来ないように禁則処理を行う。「これは読みやすさのためである。」ひらがな、カタカナ、漢字が混在する。"],
                            language: "ja", paragraphStyle: style)
    try LayoutGolden.check("japanese", try typesetAll(japanese, layout("ja", columns: 2, width: 420, height: 300), fonts: sharedFonts), text: japanese)
}

@Test func verticalJapaneseMatchesGolden() throws {
    var style = ParagraphStyle()
    style.lineHeight = 1.5
    let text = testText(["縦書きでは行が上から下へ進み、右から左へ並ぶ。「括弧」や句読点は縦書き用の字形になる。", "英語 Latin と数字 2026 は横に寝かせる。ー（長音）"],
                        size: 10, family: "Noto Serif CJK JP", language: "ja", paragraphStyle: style)
    var vertical = layout("tate", columns: 2, width: 300, height: 320)
    vertical.writingMode = .verticalRL
    vertical.typography.justifyThreshold = 0.8
    try LayoutGolden.check("vertical-japanese", try typesetAll(text, vertical, fonts: sharedFonts), text: text)
}

@Test func bidirectionalTextMatchesGolden() throws {
    let text = testText(["English with עברית inside and 123 numbers.", "פסקה בעברית with English words ומספרים 2024."])
    try LayoutGolden.check("bidi", try typesetAll(text, layout("bidi", columns: 1, width: 260, height: 300), fonts: sharedFonts), text: text)
}

/// A magazine page's blocks: a headline across three columns, a picture and a boxed sidebar
/// floated beside the text, a pull quote across the columns with a rule, a boxed note split
/// over columns, and the last page's columns balanced.
@Test func magazineBlocksMatchGolden() throws {
    var layout = layout("magazine", columns: 2, width: 500, height: 520)
    layout.inset = .init(all: 30)
    layout.base.fontSize = 9
    layout.typography.justifyThreshold = 0.8
    func prose(_ words: Int, _ seed: UInt64) -> String { SpanningBlockTests.prose(words, seed: seed) }
    let html = "<h1 style='column-span: all; font-size: 20pt'>A headline across the columns</h1>"
        + "<p><img src='a.png' width=80 height=60 style='float: right'>\(prose(90, 1))</p>"
        + "<aside style='float: left; width: 45%; border: 1px solid #333; padding: 4px; background: #eeeeee'><h3>Sidebar</h3><p>\(prose(25, 2))</p></aside>"
        + "<p>\(prose(120, 3))</p>"
        + "<blockquote style='column-span: all; border-top: 2px solid #800; border-bottom: 1px dotted #800; padding: 4px 0; text-align: center'>\(prose(14, 4))</blockquote>"
        + "<div style='border: 1px dashed #555; padding: 6px; background: #f4f0e8'><p>\(prose(160, 5))</p></div><p style='clear: both'>\(prose(60, 6))</p>"
    let text = BalancedColumnsTests.parse(html, layout)
    try LayoutGolden.check("magazine-blocks", try typesetAll(text, layout, fonts: sharedFonts), text: text)
}
