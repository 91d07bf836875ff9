import Foundation
import GalleyRaster

/// Decodes WebP, JPEG and AVIF files (and PNG) with decoders that share no code with Galley's
/// encoders: Pillow (python3-pil) for PNG, JPEG and WebP, and libavif's `avifdec` (which
/// decodes AV1 with dav1d, not the libaom that encodes) for AVIF, written to PNG and read by
/// Pillow. Also reports what the file says about itself (size, resolution, progressive scans).
public enum IndependentImageDecoder {
    /// What a file says about itself, as Pillow reads it.
    public struct Facts: Decodable, Sendable {
        public var format: String
        public var width: Int
        public var height: Int
        /// JPEG: JFIF density unit (1: dots per inch) and density.
        public var jfifUnit: Int?
        public var jfifDensity: [Int]?
        public var progressive: Bool
        /// WebP: the Exif block's XResolution, YResolution and ResolutionUnit (2: inches).
        public var exifResolution: [Double]?
    }

    /// The RGB pixels of an image file, and its facts.
    public static func decode(_ bytes: [UInt8], format: ImageFormat) throws -> (bitmap: Bitmap, facts: Facts) {
        let folder = try ScratchFolder("independent-decoder")
        var input = folder.path("image.\(format.fileExtension)")
        try Data(bytes).write(to: input)
        if format == .avif {
            let png = folder.path("avif.png")
            let result = try PeerTools.run("avifdec", ["-d", "8", input.path, png.path])
            guard result.status == 0 else { throw PeerToolError(message: "avifdec failed: \(result.stdout) \(result.stderr)") }
            input = png
        }
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let raw = folder.path("image.rgb")
        let result = try PeerTools.run(python, ["-c", script, input.path, raw.path])
        guard result.status == 0 else { throw PeerToolError(message: "Pillow failed: \(result.stdout) \(result.stderr)") }
        let facts = try JSONDecoder().decode(Facts.self, from: Data(result.stdout.utf8))
        let pixels = try Data(contentsOf: raw)
        let bitmap = try Bitmap(width: facts.width, height: facts.height)
        guard pixels.count == bitmap.pixels.count else { throw PeerToolError(message: "Pillow gave \(pixels.count) bytes") }
        pixels.withUnsafeBytes { bitmap.pixels.copyMemory(from: $0) }
        return (bitmap, facts)
    }

    private static let script = #"""
import json, sys
from PIL import Image
image = Image.open(sys.argv[1]); image.load()
facts = {"format": image.format, "width": image.width, "height": image.height,
         "progressive": bool(image.info.get("progressive") or image.info.get("progression"))}
if image.format == "JPEG":
    facts["jfifUnit"] = image.info.get("jfif_unit")
    facts["jfifDensity"] = list(image.info.get("jfif_density", ()))
exif = image.getexif()
if 282 in exif:
    facts["exifResolution"] = [float(exif[282]), float(exif[283]), float(exif.get(296, 0))]
open(sys.argv[2], "wb").write(image.convert("RGB").tobytes())
print(json.dumps(facts))
"""#
}
