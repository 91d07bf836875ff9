import GalleyRaster
import CHarfBuzz
import GalleyBase

/// Shapes items through a `Shaper`, word by word where that cannot change the glyphs, and
/// remembers each word's glyphs: an article repeats a few thousand distinct words tens of
/// thousands of times, and shaping was the largest part of typesetting.
///
/// Shaping "a b" in one go gives the glyphs of "a", " " and "b" shaped apart, one after the
/// other, when nothing in the font reaches across the space: no substitution or positioning
/// lookup reads or writes the space glyph (no ligature or contextual form through a space),
/// nothing is kerned against the space, and shaping uses no context outside the text. That
/// holds for left-to-right horizontal (or sideways) text of the scripts HarfBuzz shapes with its default shaper
/// (`wordScripts`) in an OpenType face that passes `FaceCheck`; every other item is shaped
/// whole, as before. `ShapingCacheTests` compares both ways on every fixture.
///
/// Owned by one paragraph analyzer, on one thread at a time, like the `Shaper` inside it.
package final class ShapingCache {
    private let shaper = Shaper()
    /// The shaper's (`Shaper.cancellationSlot`).
    var cancellationSlot: CancellationSlot {
        get { shaper.cancellationSlot }
        set { shaper.cancellationSlot = newValue }
    }
    /// Words already shaped, in font units (`Shaper.shape(scale: 1)`), so that every size of a
    /// face shares them: one table per face, script and language.
    private var tables: [Context: WordTable] = [:]
    private var wordCount = 0
    /// `FaceCheck`'s answers for the faces and scripts seen, without its lock.
    private var faceAllowsWords: [FaceScript: Bool] = [:]

    private struct FaceScript: Hashable {
        var face: ObjectIdentifier
        var script: UInt32
    }

    private struct Context: Hashable {
        var face: ObjectIdentifier
        var script: UInt32
        var language: String?
        /// Shaped without optional ligatures (`Shaper.withoutLigatures`, for letter spacing).
        var withoutLigatures: Bool
    }

    /// Past this many words the cache starts over (every table goes), which bounds its memory
    /// on long books in many faces and languages.
    static let wordLimit = 50_000
    /// Longer stretches (addresses, code, runs without spaces) rarely repeat: shaped, not kept.
    static let longestWord = 48

    /// Scripts HarfBuzz shapes with its default shaper, whose words do not interact across a
    /// space.
    static let wordScripts: Set<UInt32> = [
        HB_SCRIPT_LATIN.rawValue, HB_SCRIPT_GREEK.rawValue, HB_SCRIPT_CYRILLIC.rawValue,
        HB_SCRIPT_COMMON.rawValue, HB_SCRIPT_ARMENIAN.rawValue, HB_SCRIPT_GEORGIAN.rawValue,
    ]

    /// Glyphs of `item` exactly as `Shaper.shape` gives them.
    func shape(_ item: TextItem, face: FontFace, paragraph: [UInt32], paragraphStart: Int) -> [ShapedGlyph] {
        // Upright items of vertical text are shaped top to bottom: whole, and never from words
        // kept for horizontal (or sideways) runs of the same face.
        guard Self.mayShapeByWord(item), allowsWords(face, script: item.script) else {
            return shaper.shape(item, face: face, paragraph: paragraph, paragraphStart: paragraphStart)
        }
        if wordCount >= Self.wordLimit {
            tables.removeAll()
            wordCount = 0
        }
        let context = Context(face: ObjectIdentifier(face), script: item.script.rawValue, language: item.style.language,
                              withoutLigatures: item.style.letterSpacing != 0)
        let scale = Shaper.scale(item, face)
        let table: WordTable
        if let known = tables[context] {
            table = known
        } else {
            table = WordTable()
            tables[context] = table
        }
        var glyphs: [ShapedGlyph] = []
        glyphs.reserveCapacity(item.range.count)
        let end = item.range.upperBound - paragraphStart
        var start = item.range.lowerBound - paragraphStart
        paragraph.withUnsafeBufferPointer { text in
            while start < end {
                // A word, or a run of spaces: up to the next change between space and
                // non-space that is safe to cut. Its hash is taken on the way.
                var next = start + 1
                var hash = WordTable.hash(text[start], into: WordTable.seed)
                while next < end && !Self.isCut(text[next - 1], text[next]) {
                    hash = WordTable.hash(text[next], into: hash)
                    next += 1
                }
                let word = UnsafeBufferPointer(rebasing: text[start..<next])
                let offset = paragraphStart + start
                let shaped = table.glyphs(of: word, hash: hash) ?? shapeAndKeep(word, hash: hash, item: item, face: face, in: table)
                for var glyph in shaped {
                    glyph.cluster += offset
                    glyph.advance *= scale
                    glyph.xOffset *= scale
                    glyph.yOffset *= scale
                    glyphs.append(glyph)
                }
                start = next
            }
        }
        return glyphs
    }

    private func shapeAndKeep(_ word: UnsafeBufferPointer<UInt32>, hash: UInt64, item: TextItem, face: FontFace,
                              in table: WordTable) -> [ShapedGlyph] {
        var alone = item
        alone.range = 0..<word.count
        // Shaped alone, clusters from 0, in font units: the same glyphs wherever the word appears.
        let text = Array(word)
        let shaped = shaper.shape(alone, face: face, paragraph: text, paragraphStart: 0, scale: 1)
        if word.count <= Self.longestWord {
            table.insert(text, glyphs: shaped, hash: hash)
            wordCount += 1
        }
        return shaped
    }

    /// Items whose words may be shaped apart, if their face allows it (`FaceCheck`):
    /// left-to-right, not upright in vertical text, in one of `wordScripts`.
    static func mayShapeByWord(_ item: TextItem) -> Bool {
        item.level & 1 == 0 && !item.upright && wordScripts.contains(item.script.rawValue)
    }

    private func allowsWords(_ face: FontFace, script: hb_script_t) -> Bool {
        let key = FaceScript(face: ObjectIdentifier(face), script: script.rawValue)
        if let known = faceAllowsWords[key] { return known }
        let allowed = FaceCheck.allowsWordShaping(face, script: script)
        faceAllowsWords[key] = allowed
        return allowed
    }

    /// Whether a word ends between these two characters.
    @inline(__always)
    private static func isCut(_ before: UInt32, _ after: UInt32) -> Bool {
        (before == 0x20) != (after == 0x20) && cutsCleanly(before) && cutsCleanly(after)
    }

    /// Characters a word may be cut beside: not marks, joiners, format controls or variation
    /// selectors, which belong with what is next to them.
    private static func cutsCleanly(_ code: UInt32) -> Bool {
        if code < 0x300 { return true }
        guard let scalar = Unicode.Scalar(code) else { return false }
        if scalar.isMark { return false }
        switch scalar.properties.generalCategory {
        case .format, .control, .surrogate, .privateUse, .unassigned: return false
        default: return !scalar.properties.isVariationSelector
        }
    }
}

/// Shaped words of one face, script, language and set of features, in an open-addressing
/// table keyed by a hash of the text taken while the word is found, so a word already seen
/// costs no allocation and no general-purpose hashing.
private final class WordTable {
    private var hashes: [UInt64]
    private var texts: [[UInt32]]
    private var shaped: [[ShapedGlyph]]
    private var count = 0
    private var mask: Int

    init() {
        mask = 255
        hashes = [UInt64](repeating: 0, count: mask + 1)
        texts = [[UInt32]](repeating: [], count: mask + 1)
        shaped = [[ShapedGlyph]](repeating: [], count: mask + 1)
    }

    static let seed: UInt64 = 0xCBF2_9CE4_8422_2325

    /// Mixes one character into a running hash (FNV-1a over whole characters).
    @inline(__always)
    static func hash(_ code: UInt32, into hash: UInt64) -> UInt64 {
        (hash ^ UInt64(code)) &* 0x0000_0100_0000_01B3
    }

    /// The hash as stored: 0 marks an empty slot.
    @inline(__always)
    private static func slotHash(_ hash: UInt64) -> UInt64 { hash | 1 }

    /// The first slot to probe for a stored hash.
    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    func glyphs(of word: UnsafeBufferPointer<UInt32>, hash: UInt64) -> [ShapedGlyph]? {
        let key = Self.slotHash(hash)
        var slot = home(key)
        while hashes[slot] != 0 {
            if hashes[slot] == key, texts[slot].elementsEqual(word) { return shaped[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    func insert(_ text: [UInt32], glyphs: [ShapedGlyph], hash: UInt64) {
        if (count + 1) * 2 > mask { grow() }
        let key = Self.slotHash(hash)
        var slot = home(key)
        while hashes[slot] != 0 { slot = (slot + 1) & mask }
        hashes[slot] = key
        texts[slot] = text
        shaped[slot] = glyphs
        count += 1
    }

    private func grow() {
        let oldHashes = hashes, oldTexts = texts, oldShaped = shaped
        mask = mask * 2 + 1
        hashes = [UInt64](repeating: 0, count: mask + 1)
        texts = [[UInt32]](repeating: [], count: mask + 1)
        shaped = [[ShapedGlyph]](repeating: [], count: mask + 1)
        for slot in oldHashes.indices where oldHashes[slot] != 0 {
            var target = home(oldHashes[slot])
            while hashes[target] != 0 { target = (target + 1) & mask }
            hashes[target] = oldHashes[slot]
            texts[target] = oldTexts[slot]
            shaped[target] = oldShaped[slot]
        }
    }
}

/// Whether a face's glyphs for words of one script stay the same when the words are shaped
/// apart.
enum FaceCheck {
    /// Answers by font file and index, and by script, for the life of the process: a face's
    /// tables do not change, and looking through its lookups costs a fraction of a
    /// millisecond, too much to repeat for every article and layout. Shared by every thread,
    /// so behind a mutex.
    private static let answers = Mutex<[String: Bool]>([:])

    /// Whether items of `script` (one of `ShapingCache.wordScripts`) in `face` may be shaped
    /// word by word: `tablesAllow` for the face, and `spaceNeighboursShapeAlone` for the
    /// script, asked only for the scripts an article has.
    static func allowsWordShaping(_ face: FontFace, script: hb_script_t) -> Bool {
        let faceKey = "\(face.index)#\(face.path)"
        let key = "\(faceKey)#\(script.rawValue)"
        if let known = answers.withLock({ $0[key] }) { return known }
        let tables = answers.withLock({ $0[faceKey] }) ?? tablesAllow(face)
        let allowed = tables && face.glyph(for: " ").map { spaceNeighboursShapeAlone(face, space: $0, script: script) } == true
        answers.withLock {
            $0[faceKey] = tables
            $0[key] = allowed
        }
        return allowed
    }

    /// No lookup of the face's GSUB or GPOS touches the space glyph, the face has no AAT
    /// tables (which HarfBuzz would use instead) and no old `kern` table without GPOS.
    private static func tablesAllow(_ face: FontFace) -> Bool {
        guard let hbFace = hb_font_get_face(face.hbFont), let space = face.glyph(for: " ") else { return false }
        func hasTable(_ tag: String) -> Bool {
            let blob = hb_face_reference_table(hbFace, Self.tag(tag))
            defer { hb_blob_destroy(blob) }
            return hb_blob_get_length(blob) > 0
        }
        if ["morx", "mort", "kerx", "trak"].contains(where: hasTable) { return false }
        if !hb_ot_layout_has_positioning(hbFace).isTrue, hasTable("kern") { return false }
        for table in ["GSUB", "GPOS"] {
            let tag = Self.tag(table)
            let sets = (0..<4).map { _ in hb_set_create() }
            defer { sets.forEach { hb_set_destroy($0) } }
            for lookup in 0..<hb_ot_layout_table_get_lookup_count(hbFace, tag) {
                hb_ot_layout_lookup_collect_glyphs(hbFace, tag, lookup, sets[0], sets[1], sets[2], sets[3])
            }
            if sets.contains(where: { hb_set_has($0, space).isTrue }) { return false }
        }
        return true
    }

    /// Shaped in `script` (its features may differ from another script's), no character an
    /// item of that script can hold and the face covers is moved or changed next to a space
    /// (kerning against the space's default class, which lookups do not list). Shapes
    /// "␠x␠y␠…" over those characters and checks that every glyph has the advance and place it
    /// has alone.
    ///
    /// An item of a script holds characters of that script and shared ones (Common,
    /// Inherited, Unknown), which take the script of the text around them: those are the
    /// candidates, from the Latin to Armenian blocks and Georgian.
    private static func spaceNeighboursShapeAlone(_ face: FontFace, space: UInt32, script: hb_script_t) -> Bool {
        var text: [UInt32] = [0x20]
        var nominal: [UInt32] = [space]
        for (scalar, own) in neighbourCandidates {
            guard own == script || own == HB_SCRIPT_COMMON || own == HB_SCRIPT_INHERITED || own == HB_SCRIPT_UNKNOWN,
                  let glyph = face.glyph(for: scalar) else { continue }
            text += [scalar.value, 0x20]
            nominal += [glyph, space]
        }
        guard let buffer = hb_buffer_create() else { return false }
        defer { hb_buffer_destroy(buffer) }
        hb_buffer_add_utf32(buffer, text, Int32(text.count), 0, Int32(text.count))
        hb_buffer_set_direction(buffer, HB_DIRECTION_LTR)
        hb_buffer_set_script(buffer, script)
        hb_shape(face.hbFont, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count), Int(count) == text.count else { return false }
        for i in 0..<Int(count) {
            let cluster = Int(infos[i].cluster)
            guard cluster < nominal.count, infos[i].codepoint == nominal[cluster] else { return false }
            let alone = hb_font_get_glyph_h_advance(face.hbFont, infos[i].codepoint)
            guard positions[i].x_advance == alone, positions[i].x_offset == 0, positions[i].y_offset == 0 else { return false }
        }
        return true
    }

    /// The characters of U+0021–U+058F (Latin to Armenian) and U+10A0–U+10FF (Georgian) that
    /// are drawn alone: not marks, controls or default ignorables (the soft hyphen), with
    /// their own script. Found once per process.
    private static let neighbourCandidates: [(Unicode.Scalar, hb_script_t)] = {
        let functions = hb_unicode_funcs_get_default()
        return (Array(UInt32(0x21)...0x58F) + Array(UInt32(0x10A0)...0x10FF)).compactMap { code in
            guard let scalar = Unicode.Scalar(code), !scalar.isMark, scalar.properties.generalCategory != .control,
                  !scalar.properties.isDefaultIgnorableCodePoint else { return nil }
            return (scalar, hb_unicode_script(functions, code))
        }
    }()

    private static func tag(_ name: String) -> hb_tag_t {
        name.utf8.reduce(0) { $0 << 8 | hb_tag_t($1) }
    }
}

private extension hb_bool_t {
    var isTrue: Bool { self != 0 }
}

extension ShapingCache {
    /// What shaping every text item of `text` whole and through a cache gives: how many items
    /// went word by word, and a description of each item whose glyphs differ (none, unless
    /// the rules for cutting words are wrong). For tests.
    package static func compareWithWholeItems(in text: AttributedText, fonts: FontLibrary) throws -> (items: Int, byWord: Int, differences: [String]) {
        let shaper = Shaper(), cache = ShapingCache()
        var byWord = 0
        let (items, differences) = try compare(in: text, fonts: fonts) { item, face, codes, start in
            if mayShapeByWord(item), FaceCheck.allowsWordShaping(face, script: item.script) { byWord += 1 }
            return (shaper.shape(item, face: face, paragraph: codes, paragraphStart: start),
                    cache.shape(item, face: face, paragraph: codes, paragraphStart: start))
        }
        return (items, byWord, differences)
    }

    /// What shaping every text item of `text` in one HarfBuzz call and in runs of at most
    /// `runLimit` characters (`Shaper.runLimit`) gives: how many items were longer than a
    /// run, the longest call the runs made, and a description of each item whose glyphs
    /// differ. For tests.
    package static func compareRuns(in text: AttributedText, fonts: FontLibrary, runLimit: Int) throws -> (items: Int, split: Int, longestCall: Int, differences: [String]) {
        let whole = Shaper(), runs = Shaper()
        whole.runLimit = .max
        runs.runLimit = runLimit
        var split = 0
        let (items, differences) = try compare(in: text, fonts: fonts) { item, face, codes, start in
            if item.range.count > runLimit { split += 1 }
            return (whole.shape(item, face: face, paragraph: codes, paragraphStart: start),
                    runs.shape(item, face: face, paragraph: codes, paragraphStart: start))
        }
        return (items, split, runs.longestCall, differences)
    }

    /// Shapes every text item of `text` two ways (`shapeBoth` gets the item, its face, its
    /// paragraph's text and the paragraph's start) and describes each item whose glyphs
    /// differ.
    private static func compare(in text: AttributedText, fonts: FontLibrary,
                                _ shapeBoth: (TextItem, FontFace, [UInt32], Int) -> ([ShapedGlyph], [ShapedGlyph])) throws -> (items: Int, differences: [String]) {
        var itemizer = Itemizer(text: text, fonts: fonts)
        var items = 0
        var differences: [String] = []
        for paragraph in text.paragraphs {
            let codes = text.scalars[paragraph.range].map(\.value)
            for item in try itemizer.items(of: paragraph.range, direction: paragraph.value.direction).items {
                guard case .text(let face) = item.kind else { continue }
                items += 1
                let (first, second) = shapeBoth(item, face, codes, paragraph.range.lowerBound)
                let same = first.count == second.count && zip(first, second).allSatisfy { a, b in
                    a.id == b.id && a.cluster == b.cluster && a.advance == b.advance && a.xOffset == b.xOffset && a.yOffset == b.yOffset
                }
                if !same {
                    let sample = String(String.UnicodeScalarView(text.scalars[item.range].prefix(60)))
                    differences.append("\(face.family) at \(item.range): \(sample)")
                }
            }
        }
        return (items, differences)
    }
}
