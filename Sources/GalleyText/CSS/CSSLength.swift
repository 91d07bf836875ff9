/// A CSS length or number, before it is resolved against a font size. Public for
/// `pipeline.yml`, whose lengths take the same absolute units.
public enum CSSLength: Sendable, Hashable {
    /// An absolute length, converted to points (`px` × 0.75, `in`, `cm`, `mm`, `pc`, `pt`).
    case points(Double)
    case em(Double)
    case rem(Double)
    case percent(Double)
    /// A number without a unit.
    case number(Double)

    /// Points per CSS px (1/96 in), also what an HTML attribute or a picture's pixel counts.
    static let pointsPerPixel = 0.75

    public init?(_ text: String) {
        let value = text.trimmingASCIIWhitespace().lowercased()
        let bytes = Array(value.utf8)
        var end = 0
        if end < bytes.count, bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "-") { end += 1 }
        while end < bytes.count, (0x30...0x39).contains(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
        guard end > 0, let number = Double(String(decoding: bytes[..<end], as: UTF8.self)), number.isFinite else {
            return nil
        }
        switch String(decoding: bytes[end...], as: UTF8.self) {
        case "": self = .number(number)
        case "px": self = .points(number * Self.pointsPerPixel)
        case "pt": self = .points(number)
        case "pc": self = .points(number * 12)
        case "in": self = .points(number * 72)
        case "cm": self = .points(number * 72 / 2.54)
        case "mm": self = .points(number * 72 / 25.4)
        case "q": self = .points(number * 72 / 101.6)
        case "em": self = .em(number)
        case "rem": self = .rem(number)
        case "ex", "ch": self = .em(number / 2)
        case "%": self = .percent(number)
        default: return nil
        }
    }

    /// Points, with `em` of `fontSize` and `rem` of `rootSize`; nil for percentages and for
    /// numbers other than 0.
    func points(fontSize: Double, rootSize: Double) -> Double? {
        switch self {
        case .points(let points): return points
        case .em(let count): return count * fontSize
        case .rem(let count): return count * rootSize
        case .percent: return nil
        case .number(let number): return number == 0 ? 0 : nil
        }
    }
}
