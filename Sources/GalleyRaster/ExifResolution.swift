/// The smallest Exif (TIFF) block that records a resolution: big-endian, one IFD with
/// XResolution, YResolution and ResolutionUnit (inches). WebP and AVIF have no resolution
/// field of their own; an Exif block is where readers (Pillow, ExifTool, image viewers) look.
enum ExifResolution {
    /// The block for `dpi`, or nil when there is no usable resolution.
    static func block(dpi: Double?) -> [UInt8]? {
        guard let dpi, dpi.isFinite, dpi > 0, dpi < 1_000_000 else { return nil }
        // A rational: thousandths, reduced (150 → 150/1, 72.5 → 145/2).
        var numerator = UInt32((dpi * 1000).rounded()), denominator: UInt32 = 1000
        var a = numerator, b = denominator
        while b != 0 { (a, b) = (b, a % b) }
        guard a > 0, numerator > 0 else { return nil }
        numerator /= a
        denominator /= a
        var bytes: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]  // "MM", 42, IFD0 at 8
        func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func u32(_ value: UInt32) { bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let entries = 3
        let valuesOffset = UInt32(8 + 2 + entries * 12 + 4)
        u16(UInt16(entries))
        // Entries in ascending tag order: tag, type (5 RATIONAL, 3 SHORT), count, value or offset.
        u16(0x011A); u16(5); u32(1); u32(valuesOffset)
        u16(0x011B); u16(5); u32(1); u32(valuesOffset + 8)
        u16(0x0128); u16(3); u32(1); u16(2); u16(0)  // 2: inches
        u32(0)  // no next IFD
        u32(numerator); u32(denominator)
        u32(numerator); u32(denominator)
        return bytes
    }
}
