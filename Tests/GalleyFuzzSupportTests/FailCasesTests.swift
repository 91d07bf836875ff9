import Foundation
import GalleyFuzzSupport
import GalleyTestSupport
import Testing

/// Every input a fuzzer ever broke Galley with, kept in `FuzzTesting/FailCases/<target>/`,
/// replayed through the target's own code (without libFuzzer): each must now finish, and give
/// the same outcome twice. A regression traps, which fails the test run.
struct FailCasesTests {
    static let folder = Fixtures.repositoryRoot.appendingPathComponent("FuzzTesting/FailCases")
    static let targetNames = [MarkupFuzzTarget.name, ConfigurationFuzzTarget.name, PDFFuzzTarget.name]

    /// A kept input: its target's folder and its file name.
    struct FailCase: CustomTestStringConvertible, Sendable {
        var target: String
        var file: String
        var testDescription: String { "\(target)/\(file)" }
    }

    static var failCases: [FailCase] {
        targetNames.flatMap { target in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(target).path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { FailCase(target: target, file: $0) }
        }
    }

    static func makeTarget(_ name: String) throws -> any FuzzTarget {
        switch name {
        case MarkupFuzzTarget.name: try MarkupFuzzTarget()
        case ConfigurationFuzzTarget.name: try ConfigurationFuzzTarget()
        case PDFFuzzTarget.name: try PDFFuzzTarget()
        default: preconditionFailure("no fuzz target \(name)")
        }
    }

    @Test func everyFolderIsATarget() throws {
        // A folder misspelt, or left behind by a renamed target, would never be replayed.
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { !$0.hasPrefix(".") }
        #expect(Set(folders).isSubset(of: Self.targetNames), "FailCases folders: \(folders.sorted())")
        #expect(!folders.isEmpty)
    }

    @Test(arguments: failCases)
    func failCaseFinishes(_ failCase: FailCase) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(failCase.target).appendingPathComponent(failCase.file)))
        let target = try Self.makeTarget(failCase.target)
        let first = target.run(bytes)
        #expect(target.run(bytes) == first)
    }
}
