import Foundation

/// Which pages of each document a run draws (`pages:` in pipeline.yml, `--pages`): page
/// numbers and ranges as `mutool draw` takes them, `1-3,7`, with `first`, and `last` or `N`
/// for the last page (`5-N`: from the fifth to the end). Pages are drawn in ascending order,
/// each once, whatever order the list gives. For articles it selects among the pages each
/// layout sets.
///
/// Written by hand: a few lines of parsing, and no Swift package here parses page ranges.
public struct PageSelection: Sendable, Hashable, CustomStringConvertible {
    enum Bound: Hashable {
        case number(Int)
        case last
    }

    /// Inclusive ranges, as written.
    private let bounds: [(lower: Bound, upper: Bound)]

    public static func == (a: PageSelection, b: PageSelection) -> Bool { a.description == b.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// The selection as a canonical string (`1-3,7,N`): part of the document fingerprint and of
    /// the manifest's settings.
    public let description: String

    /// Parses a selection; throws a message saying what is wrong with which item.
    public init(parsing text: String) throws(SelectionError) {
        var bounds: [(lower: Bound, upper: Bound)] = []
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !(items.count == 1 && items[0].isEmpty) else { throw SelectionError("no pages: write page numbers or ranges, such as 1-3,7 or first") }
        for item in items {
            guard !item.isEmpty else { throw SelectionError("an empty item in '\(text)'") }
            let parts = item.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let lower = try Self.bound(parts[0], in: item)
            let upper = parts.count == 2 ? try Self.bound(parts[1], in: item) : lower
            if case let .number(a) = lower, case let .number(b) = upper, a > b {
                throw SelectionError("'\(item)' runs backwards; write \(b)-\(a)")
            }
            if case .last = lower, case .number = upper { throw SelectionError("'\(item)' runs backwards from the last page") }
            bounds.append((lower, upper))
        }
        self.bounds = bounds
        description = bounds.map { bound in
            let lower = Self.text(bound.lower), upper = Self.text(bound.upper)
            return lower == upper ? lower : "\(lower)-\(upper)"
        }.joined(separator: ",")
    }

    private static func bound(_ text: String, in item: String) throws(SelectionError) -> Bound {
        switch text.lowercased() {
        case "first": return .number(1)
        case "last", "n": return .last
        default:
            guard let number = Int(text), number >= 1, number <= 10_000_000 else {
                throw SelectionError("'\(item)': pages are numbers from 1, first, last or N")
            }
            return .number(number)
        }
    }

    private static func text(_ bound: Bound) -> String {
        switch bound {
        case .number(let n): "\(n)"
        case .last: "N"
        }
    }

    /// Whether page `number` (1-based) of `pageCount` is selected.
    public func contains(_ number: Int, pageCount: Int) -> Bool {
        bounds.contains { bound in
            func value(_ b: Bound) -> Int {
                switch b {
                case .number(let n): n
                case .last: pageCount
                }
            }
            return value(bound.lower) <= number && number <= value(bound.upper)
        }
    }

    /// Whether page `number` is selected when the page count is not known yet (an article's
    /// pages are counted as they are set): nil when that depends on whether it is the last.
    public func contains(_ number: Int) -> Bool? {
        var dependsOnLast = false
        for bound in bounds {
            switch (bound.lower, bound.upper) {
            case let (.number(a), .number(b)): if a <= number && number <= b { return true }
            case let (.number(a), .last): if number >= a { return true }
            case (.last, _): dependsOnLast = true
            }
        }
        return dependsOnLast ? nil : false
    }

    /// The selected page indices (0-based, ascending) of a document of `pageCount` pages, at
    /// most `limit` of them.
    public func indices(pageCount: Int, limit: Int? = nil) -> [Int] {
        var selected = (1...max(1, pageCount)).filter { $0 <= pageCount && contains($0, pageCount: pageCount) }.map { $0 - 1 }
        if let limit, selected.count > limit { selected.removeLast(selected.count - limit) }
        return selected
    }
}

/// What is wrong with a page selection.
public struct SelectionError: Error, CustomStringConvertible, Sendable {
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
