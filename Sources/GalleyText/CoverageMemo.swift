/// Which characters a few faces cover, remembered as the itemizer asks: it asks for nearly
/// every character of an article, nearly always of the same one or two faces, and a cmap
/// lookup through HarfBuzz costs several times a table read.
///
/// Characters below `limit` are remembered, in one table per face for the `slots` faces
/// asked about most recently; others are looked up every time. One itemizer's, on one thread.
struct CoverageMemo {
    static let limit: UInt32 = 0x3000
    static let slots = 4

    /// Per face: 0 not asked yet, 1 covered, 2 not covered.
    private var tables: [(face: ObjectIdentifier, known: [UInt8])] = []

    /// Whether `face` has a glyph for `scalar` (`FontFace.glyph(for:) != nil`).
    mutating func covers(_ face: FontFace, _ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value < Self.limit else { return face.glyph(for: scalar) != nil }
        let id = ObjectIdentifier(face)
        let slot: Int
        if let found = tables.firstIndex(where: { $0.face == id }) {
            slot = found
        } else {
            if tables.count == Self.slots { tables.removeLast() }
            tables.insert((id, [UInt8](repeating: 0, count: Int(Self.limit))), at: 0)
            slot = 0
        }
        let index = Int(scalar.value)
        switch tables[slot].known[index] {
        case 1: return true
        case 2: return false
        default:
            let covered = face.glyph(for: scalar) != nil
            tables[slot].known[index] = covered ? 1 : 2
            return covered
        }
    }
}
