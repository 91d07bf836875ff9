/// Which characters a few faces cover, remembered as the itemizer asks: it asks for nearly
/// every character of an article, nearly always of the same one or two faces, and a cmap
/// lookup through HarfBuzz costs several times a table read.
///
/// Characters below `limit` are remembered, in one table per face for the `slots` faces
/// asked about most recently; others are looked up every time. One itemizer's, on one thread.
struct CoverageMemo {
    static let limit: UInt32 = 0x3000
    static let slots = 4

    /// The faces with a table, most recently asked first.
    private var faces: [ObjectIdentifier] = []
    /// The tables, `limit` entries each, at `slot × limit`, in no particular order; per
    /// character 0 not asked yet, 1 covered, 2 not covered.
    private var known: [UInt8] = []
    /// Where each face's table starts in `known`, in the order of `faces`.
    private var starts: [Int] = []

    /// Whether `face` has a glyph for `scalar` (`FontFace.glyph(for:) != nil`).
    mutating func covers(_ face: FontFace, _ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value < Self.limit else { return face.glyph(for: scalar) != nil }
        let id = ObjectIdentifier(face)
        let start: Int
        if let first = faces.first, first == id {
            start = starts[0]
        } else {
            start = table(for: id)
        }
        let index = start + Int(scalar.value)
        switch known[index] {
        case 1: return true
        case 2: return false
        default:
            let covered = face.glyph(for: scalar) != nil
            known[index] = covered ? 1 : 2
            return covered
        }
    }

    /// The start of `id`'s table, moved to the front; a new table takes the least recently
    /// asked face's place once all slots are used.
    private mutating func table(for id: ObjectIdentifier) -> Int {
        if let found = faces.firstIndex(of: id) {
            let start = starts.remove(at: found)
            faces.remove(at: found)
            faces.insert(id, at: 0)
            starts.insert(start, at: 0)
            return start
        }
        let start: Int
        if faces.count == Self.slots {
            faces.removeLast()
            start = starts.removeLast()
            for i in start..<(start + Int(Self.limit)) { known[i] = 0 }
        } else {
            start = known.count
            known.append(contentsOf: repeatElement(0, count: Int(Self.limit)))
        }
        faces.insert(id, at: 0)
        starts.insert(start, at: 0)
        return start
    }
}
