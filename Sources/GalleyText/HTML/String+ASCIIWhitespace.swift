extension String {
    /// The text without leading and trailing ASCII white space, the only white space HTML
    /// and CSS know (and much faster than Foundation's trimming).
    func trimmingASCIIWhitespace() -> String {
        self[...].trimmingASCIIWhitespace()
    }
}

extension Substring {
    /// The text without leading and trailing ASCII white space.
    func trimmingASCIIWhitespace() -> String {
        var scalars = unicodeScalars
        while let first = scalars.first, first.isHTMLWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isHTMLWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
