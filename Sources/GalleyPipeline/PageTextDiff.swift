import Foundation

/// `--text`: the words of each changed page compared.
enum PageTextDiff {
    static func add(to report: inout DiffReport, base: RunOutputs, new: RunOutputs) {}
}
