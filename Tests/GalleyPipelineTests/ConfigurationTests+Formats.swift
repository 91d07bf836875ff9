import Foundation
import GalleyPipeline
import GalleyRaster
import Testing

/// `format:`, `thumbnail_format:` and the settings of each format in `pipeline.yml` (in the
/// configuration tests' suite, with their `load` and `loadError`).
extension ConfigurationTests {
    @Test func imageFormatsDefaultToPNG() throws {
        let configuration = try load("inputs: [a]\n")
        #expect(configuration.imageEncoder.format == .png && configuration.thumbnailEncoder.format == .png)
    }

    @Test func formatsAndTheirSettingsReachTheEncoders() throws {
        let configuration = try load("""
            format: jpeg
            thumbnail_format: avif
            quality: 70
            progressive: true
            chroma: "4:4:4"
            speed: 9
            """)
        let jpeg = try #require(configuration.imageEncoder as? JPEGImageEncoder)
        #expect(jpeg.quality == 70 && jpeg.progressive && jpeg.chroma == .full)
        let avif = try #require(configuration.thumbnailEncoder as? AVIFImageEncoder)
        #expect(avif.quality == 70 && avif.speed == 9 && avif.chroma == .full)
        let webp = try #require(try load("format: webp\nlossless: true\n").imageEncoder as? WebPImageEncoder)
        #expect(webp.lossless && webp.quality == ImageEncoding.defaultQuality(.webp))
    }

    @Test(arguments: [
        ("format: gif\n", "format", 1, "png, webp, jpeg, avif"),
        ("thumbnail_format: [png]\n", "thumbnail_format", 1, "expected text"),
        ("format: jpeg\nquality: 101\n", "quality", 2, "0...100"),
        ("format: webp\nquality: -1\n", "quality", 2, "0...100"),
        ("format: avif\nspeed: 11\n", "speed", 2, "0...10"),
        ("format: jpeg\nlossless: true\n", "lossless", 2, "applies to webp only"),
        ("format: jpeg\nchroma: 4:2:0\n", "chroma", 2, "in quotes"),
        ("format: jpeg\nchroma: '4:2:2'\n", "chroma", 2, "\"4:4:4\" or \"4:2:0\""),
        ("quality: 80\n", "quality", 1, "applies to webp, jpeg, avif only, and the output format is png"),
        ("format: webp\nprogressive: true\n", "progressive", 2, "applies to jpeg only"),
        ("format: jpeg\nspeed: 4\n", "speed", 2, "applies to avif only"),
    ])
    func impossibleFormatSettingsNameTheKeyAndLine(yaml: String, key: String, line: Int, message: String) throws {
        let error = try #require(loadError(yaml))
        #expect(error.key == key && error.line == line, "\(error)")
        #expect(error.description.contains(message), "\(error)")
    }

    @Test func aSettingAppliesWhenEitherFormatUsesIt() throws {
        #expect(try load("format: png\nthumbnail_format: webp\nlossless: true\n").thumbnailEncoder.fingerprint.contains("lossless"))
        #expect(try load("format: avif\nthumbnail_format: png\nchroma: '4:2:0'\n").imageEncoder.fingerprint.contains("4:2:0"))
    }
}
