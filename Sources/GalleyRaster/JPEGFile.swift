/// What a JPEG file's frame header says: enough to tell whether a PDF may embed the file as it
/// is (PDF's DCTDecode reads baseline and progressive JPEG).
public enum JPEGFile {
    /// Size and number of components of a baseline (SOF0, SOF1) or progressive (SOF2) JPEG;
    /// nil for anything else (not a JPEG, lossless, arithmetic-coded, cut short).
    public static func facts(_ bytes: [UInt8]) -> (width: Int, height: Int, components: Int)? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }  // fill byte
            // Markers without a length: TEM and RST0-7; the image data starts after SOS.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { index += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard marker <= 0xC2, index + 9 < bytes.count else { return nil }
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return width > 0 && height > 0 ? (width, height, Int(bytes[index + 9])) : nil
            }
            index += 2 + length
        }
        return nil
    }
}
