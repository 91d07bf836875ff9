import Foundation

extension RGBColor {
    /// A CSS colour: `#rgb`, `#rrggbb`, `#rgba`, `#rrggbbaa`, `rgb()`/`rgba()` with commas or
    /// spaces, `hsl()`/`hsla()` and the named colours of `RGBColor`; alpha is ignored. Nil
    /// for `transparent`, `currentColor` or anything unknown. Used for markup and for the
    /// colours in `pipeline.yml`.
    public init?(css text: String) {
        guard let color = Self.parsingCSS(text) else { return nil }
        self = color
    }

    private static func parsingCSS(_ text: String) -> RGBColor? {
        let value = text.trimmingASCIIWhitespace().lowercased()
        if value.hasPrefix("#") {
            var digits = Array(value.utf8.dropFirst())
            switch digits.count {
            case 3, 4: digits = digits.prefix(3).flatMap { [$0, $0] }
            case 6, 8: digits = Array(digits.prefix(6))
            default: return nil
            }
            guard let number = UInt32(String(decoding: digits, as: UTF8.self), radix: 16) else { return nil }
            return RGBColor(r: UInt8(number >> 16 & 0xFF), g: UInt8(number >> 8 & 0xFF), b: UInt8(number & 0xFF))
        }
        if let open = value.firstIndex(of: "("), value.hasSuffix(")") {
            let function = value[..<open]
            let arguments = value[value.index(after: open)..<value.index(before: value.endIndex)]
                .split(whereSeparator: { $0 == "," || $0 == " " || $0 == "/" || $0 == "\t" })
                .map(String.init)
            guard arguments.count >= 3 else { return nil }
            if function == "rgb" || function == "rgba" {
                var channels: [UInt8] = []
                for argument in arguments.prefix(3) {
                    let isPercent = argument.hasSuffix("%")
                    guard let number = Double(isPercent ? String(argument.dropLast()) : argument), number.isFinite else {
                        return nil
                    }
                    channels.append(UInt8(max(0, min(255, (isPercent ? number * 2.55 : number).rounded()))))
                }
                return RGBColor(r: channels[0], g: channels[1], b: channels[2])
            }
            if function == "hsl" || function == "hsla" {
                return hsl(arguments)
            }
            return nil
        }
        return named[value]
    }

    private static func hsl(_ arguments: [String]) -> RGBColor? {
        let hueText = arguments[0].hasSuffix("deg") ? String(arguments[0].dropLast(3)) : arguments[0]
        guard let hue = Double(hueText),
              let saturation = Double(arguments[1].replacingOccurrences(of: "%", with: "")),
              let lightness = Double(arguments[2].replacingOccurrences(of: "%", with: "")),
              hue.isFinite, saturation.isFinite, lightness.isFinite else { return nil }
        let h = (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 360
        let s = max(0, min(1, saturation / 100)), l = max(0, min(1, lightness / 100))
        let q = l < 0.5 ? l * (1 + s) : l + s - l * s
        let p = 2 * l - q
        func channel(_ offset: Double) -> UInt8 {
            var t = h + offset
            if t < 0 { t += 1 }
            if t > 1 { t -= 1 }
            let v: Double
            if t < 1.0 / 6 { v = p + (q - p) * 6 * t }
            else if t < 0.5 { v = q }
            else if t < 2.0 / 3 { v = p + (q - p) * (2.0 / 3 - t) * 6 }
            else { v = p }
            return UInt8(max(0, min(255, (v * 255).rounded())))
        }
        return RGBColor(r: channel(1.0 / 3), g: channel(0), b: channel(-1.0 / 3))
    }
}
