import GalleyRaster

/// Decoded pictures of an article's attachments, by `Attachment.source` as written.
///
/// GalleyText does not read or decode files: the caller (the pipeline) resolves each source,
/// decodes it (with MuPDF) and hands the pixels in. An attachment whose source has no entry
/// keeps the placeholder box.
public typealias AttachmentImages = [String: RasterImage]

extension Attachment {
    /// Points per image pixel: a pixel counts as a CSS px, whatever resolution the file
    /// records (as browsers do).
    static let pointsPerPixel = CSSLength.pointsPerPixel

    /// This attachment with the size its picture gives: the intrinsic size when the markup
    /// gives neither width nor height, the missing one from the picture's aspect ratio when it
    /// gives one. (Fitting to the column happens when the box is made.)
    func sized(by image: RasterImage) -> Attachment {
        var sized = self
        (sized.width, sized.height) = filled(intrinsic: (image.intrinsicWidth * Self.pointsPerPixel,
                                                         image.intrinsicHeight * Self.pointsPerPixel))
        return sized
    }

    /// Width and height in points: as the markup gives them, the missing one from the
    /// intrinsic size's aspect ratio, or the intrinsic size when it gives neither.
    func filled(intrinsic: (width: Double, height: Double)) -> (width: Double, height: Double) {
        switch (width, height) {
        case (nil, nil): intrinsic
        case (let w?, nil): (w, w * intrinsic.height / intrinsic.width)
        case (nil, let h?): (h * intrinsic.width / intrinsic.height, h)
        case (let w?, let h?): (w, h)
        }
    }
}

extension AttributedText {
    /// The text with each attachment that has a picture sized by it.
    func sizingAttachments(by images: AttachmentImages) -> AttributedText {
        guard !images.isEmpty else { return self }
        let sized = attachments.map { attachment in images[attachment.source].map { attachment.sized(by: $0) } ?? attachment }
        var text = AttributedText(scalars: scalars, styleRuns: styleRuns, paragraphs: paragraphs, attachments: sized, tables: tables, boxes: boxes,
                                  floats: floats, boxTree: boxTree)
        text.keepExtras(of: self)
        return text
    }
}

extension TypesetLine {
    /// Whether the line holds pictures and no text (an image alone in its paragraph): such a
    /// line is as tall as its tallest picture, without the paragraph's leading.
    var holdsOnlyBoxes: Bool { runs.isEmpty && !boxes.isEmpty }
}

/// A picture drawn into its attachment frame.
struct PlacedImage: Sendable {
    var rect: Rect
    var image: RasterImage
    /// What it is cut to (`overflow: hidden`), and its layer (`TypesetPage.layers`).
    var clip: Rect?
    var layer = 0
}
