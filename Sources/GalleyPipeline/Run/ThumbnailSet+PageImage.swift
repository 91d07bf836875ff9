import GalleyRaster

extension ThumbnailSet {
    /// The scale a page's thumbnails are reduced from in a run that makes page images: the page
    /// image's, when that drawing is whole (not drawn in bands) and at least the largest box's
    /// size on both sides. The page is then drawn once for all its outputs: the page image is
    /// that drawing, the largest box that drawing reduced by area averaging (a proper downscale:
    /// each thumbnail pixel the mean of the page image's pixels under it), so each picture of the
    /// page is decoded once, not once for the page image and again for the thumbnails. Nil
    /// without page images, for a page drawn in bands, or one whose page image is smaller than
    /// the largest box: the largest box is drawn at its own scale.
    ///
    /// A function of the configuration and the page alone, so a thumbnail is the same whichever
    /// outputs a run finds already made (`galley thumbs` draws the page image it keeps to reduce
    /// it); its fingerprint names the page images' resolution (`Fingerprints.output`).
    func pageImageScale(_ page: any PageSource, _ configuration: Configuration) -> Double? {
        guard configuration.pageImages else { return nil }
        let scale = configuration.pageScale
        let image = page.pixelBounds(scale: scale)
        let largest = page.pixelBounds(scale: page.thumbnailScale(box: master))
        guard !PageRenderer.isBanded(image), image.width >= largest.width, image.height >= largest.height else {
            return nil
        }
        return scale
    }
}
