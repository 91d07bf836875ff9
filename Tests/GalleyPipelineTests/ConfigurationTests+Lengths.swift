import Foundation
import GalleyPipeline
import GalleyText
import Testing

/// Lengths in `pipeline.yml` (a layout's `page`, `inset`, `column_gap`, `font_size`) with CSS's
/// absolute units; a bare number is points (in the configuration tests' suite, with their
/// `load` and `loadError`).
extension ConfigurationTests {
    func layout(_ lines: String) throws -> ArticleLayout {
        let indented = lines.split(separator: "\n").map { "    \($0)" }.joined(separator: "\n")
        return try #require(try load("layouts:\n  - name: a\n\(indented)\n").layouts.first)
    }

    /// Lengths and their points by CSS's definitions: 1 in = 72 pt = 2.54 cm = 25.4 mm =
    /// 6 pc = 96 px, 1 q = 1/4 mm.
    static let lengths: [(String, Double)] = {
        let pointsPerMillimetre: Double = 72 / 25.4
        return [
            ("15mm", 15 * pointsPerMillimetre), ("4.5mm", 4.5 * pointsPerMillimetre), ("2cm", 20 * pointsPerMillimetre),
            ("1in", 72), ("0.5in", 36), ("10.5pt", 10.5), ("3pc", 36), ("96px", 72), ("40q", 10 * pointsPerMillimetre),
            ("20MM", 20 * pointsPerMillimetre), ("+12pt", 12), ("42", 42), ("0mm", 0),
        ]
    }()

    /// Each unit converts as CSS defines it, in every length of a layout.
    @Test(arguments: lengths)
    func aLengthWithAUnitIsConvertedToPoints(text: String, points: Double) throws {
        let inset = try layout("inset: \(text)").inset
        #expect(abs(inset.top - points) < 0.0001 && abs(inset.left - points) < 0.0001, "\(text): \(inset)")
        #expect(abs(try layout("column_gap: \(text)").columnGap - points) < 0.0001, "\(text)")
        if points >= 1 { #expect(abs(try layout("font_size: \(text)").base.fontSize - points) < 0.0001, "\(text)") }
    }

    /// The examples of the issue: A4 in millimetres is A4, insets per side in mixed units.
    @Test func pageSizesAndInsetsTakeUnits() throws {
        let a4 = try layout("page: [210mm, 297mm]\ninset: {top: 2cm, right: 15mm, bottom: 2cm, left: 0.75in}\ncolumn_gap: 4.5mm\nfont_size: 10.5pt")
        #expect(abs(a4.pageWidth - 595.2756) < 0.01 && abs(a4.pageHeight - 841.8898) < 0.01, "\(a4.pageWidth) × \(a4.pageHeight)")
        #expect(abs(a4.inset.top - 56.6929) < 0.01 && abs(a4.inset.bottom - 56.6929) < 0.01)
        #expect(abs(a4.inset.right - 42.5197) < 0.01 && a4.inset.left == 54)
        #expect(abs(a4.columnGap - 12.7559) < 0.01 && a4.base.fontSize == 10.5)
        #expect(abs(try layout("inset: 15mm").inset.top - 42.52) < 0.01)
        // The same page written in points and in inches.
        let letter = try layout("page: [8.5in, 11in]")
        #expect(letter.pageWidth == 612 && letter.pageHeight == 792)
    }

    /// A unit that is not one, a relative unit, a space before the unit, notation that is not
    /// plain decimal, and a converted length out of range: the message names the units and the
    /// range in points, with the file, line and key.
    @Test(arguments: [
        ("inset: 5 furlongs", "layouts.a.inset", "'5 furlongs'"),
        ("column_gap: 5furlongs", "layouts.a.column_gap", "'5furlongs'"),
        ("font_size: 15 mm", "layouts.a.font_size", "'15 mm'"),
        ("column_gap: 1e1mm", "layouts.a.column_gap", "'1e1mm'"),
        ("column_gap: 05mm", "layouts.a.column_gap", "'05mm'"),
        ("column_gap: .5mm", "layouts.a.column_gap", "'.5mm'"),
        ("column_gap: mm", "layouts.a.column_gap", "'mm'"),
        ("page: [210mm, 297furlongs]", "layouts.a.page", "'297furlongs'"),
        ("inset: {top: 2cm, left: 1ft}", "layouts.a.inset.left", "'1ft'"),
    ])
    func aBadLengthSaysWhichUnitsAreAccepted(line: String, key: String, shown: String) throws {
        let error = try #require(loadError("inputs: [a]\nlayouts:\n  - name: a\n    \(line)\n"))
        #expect(error.file == "pipeline.yml" && error.line == 4 && error.key == key, "\(error)")
        #expect(error.message.contains("mm, cm, in, pt, pc, px, q") && error.message.contains(shown), "\(error)")
        #expect(error.message.contains(" pt,") && error.message.contains("a number in points"), "\(error)")
    }

    /// em and rem in insets and the column gap are the layout's font_size, written before or
    /// after them, or its default.
    @Test func insetsAndTheGapTakeEmsOfTheLayoutsFontSize() throws {
        let later = try layout("column_gap: 2em\ninset: {top: 1.5rem, left: 3em}\nfont_size: 9pt")
        #expect(later.columnGap == 18 && later.inset.top == 13.5 && later.inset.left == 27, "\(later.columnGap) \(later.inset)")
        let earlier = try layout("font_size: 10\ninset: 4em")
        #expect(earlier.inset.top == 40 && earlier.inset.right == 40)
        #expect(try layout("column_gap: 1em").columnGap == ArticleLayout(name: "a").base.fontSize)
    }

    /// em and rem where nothing gives their size (a page side, the font size itself), %, and
    /// the CSS units Galley approximates (ex, ch) are refused, saying why.
    @Test(arguments: [
        ("page: [20em, 30em]", "em and rem are read only in inset and column_gap"),
        ("font_size: 1.2rem", "em and rem are read only in inset and column_gap"),
        ("column_gap: 10%", "% is not read"),
        ("inset: {top: 5%}", "% is not read"),
        ("column_gap: 2ex", "or em and rem (of the layout's font_size)"),
    ])
    func relativeUnitsAreRefusedWithTheReason(line: String, reason: String) throws {
        let error = try #require(loadError("layouts:\n  - name: a\n    \(line)\n"))
        #expect(error.line == 3 && error.message.contains(reason), "\(error)")
    }

    /// Range checks are in points after conversion, negative lengths included; the message
    /// gives what the length came to.
    @Test func rangesApplyToTheConvertedLength() throws {
        let gap = try #require(loadError("layouts:\n  - name: a\n    column_gap: 18cm\n"))
        #expect(gap.line == 3 && gap.key == "layouts.a.column_gap", "\(gap)")
        #expect(gap.description == "pipeline.yml:3: layouts.a.column_gap: 18cm (510.24 pt) is outside the allowed 0...500 pt", "\(gap)")
        #expect(try layout("column_gap: 17cm").columnGap < 500)
        let negative = try #require(loadError("layouts:\n  - name: a\n    inset: -1mm\n"))
        #expect(negative.message.contains("outside the allowed 0...5000 pt"), "\(negative)")
        let tiny = try #require(loadError("layouts:\n  - name: a\n    page: [12mm, 297mm]\n"))
        #expect(tiny.message.contains("outside the allowed 36...14400 pt"), "\(tiny)")
        let huge = try #require(loadError("layouts:\n  - name: a\n    font_size: 99999999999999999999999999999999999999in\n"))
        #expect(huge.message.contains("outside the allowed 1...500 pt"), "\(huge)")
    }
}
