import Foundation
import GalleyRaster
import Yams

/// A configuration file that cannot be used: the key, the line and what is allowed.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var file: String
    public var line: Int?
    public var key: String?
    public var message: String

    public init(file: String, line: Int? = nil, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        var where_ = file
        if let line { where_ += ":\(line)" }
        if let key { return "\(where_): \(key): \(message)" }
        return "\(where_): \(message)"
    }
}

/// Loading `pipeline.yml`.
///
/// Keys (every one optional):
///
/// | key | type | default |
/// | --- | --- | --- |
/// | `inputs` | list of folders, files or globs (or one string) | `["."]` |
/// | `output` | folder | `out` |
/// | `dpi` | number, 1...2400 | 150 |
/// | `page_images` | boolean: write full-size page images (false: thumbnails only) | `true` |
/// | `thumbnails` | list of box sizes in pixels, 8...4096 (empty for none) | `[128, 256]` |
/// | `workers` | number for every stage, or a map of `open`, `render`, `thumbnails`, `encode` | cores |
/// | `max_pages_in_flight` | number, 1...4096 | 4 × cores |
/// | `page_timeout` | seconds a page may take to record or draw, 0.001...86400 | 300 |
/// | `png` | `fast`, `balanced` or `small` | `balanced` |
/// | `passwords` | map of file name, relative path or glob → password, or `env:NAME` to read it from the environment | none |
///
/// Unknown keys, wrong types and impossible values are errors naming the key and line.
extension Configuration {
    /// Loads a configuration file; relative paths in it are resolved against its folder.
    public static func load(file url: URL) throws(ConfigurationError) -> Configuration {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ConfigurationError(file: url.path, message: "cannot read the configuration file (\(error.localizedDescription)); pass --config with an existing file")
        }
        return try load(yaml: text, file: url.path, baseDirectory: url.deletingLastPathComponent())
    }

    /// Parses configuration text. `file` names it in error messages.
    public static func load(yaml text: String, file: String, baseDirectory: URL,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        configuration.baseDirectory = baseDirectory
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(file: file, message: "not valid YAML: \(error)")
        }
        guard let root else { return configuration }  // an empty file: all defaults
        let reader = YAMLReader(file: file)
        guard let mapping = root.mapping else {
            throw reader.error(root, key: nil, "the file must be a map of settings, like `inputs: [docs]`")
        }
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { throw reader.error(keyNode, key: nil, "keys must be strings") }
            switch key {
            case "inputs":
                configuration.inputs = try reader.stringList(value, key: key)
                guard !configuration.inputs.isEmpty else { throw reader.error(value, key: key, "list at least one folder, file or glob") }
            case "output":
                configuration.output = try reader.string(value, key: key)
                guard !configuration.output.isEmpty else { throw reader.error(value, key: key, "must not be empty") }
            case "dpi":
                configuration.dpi = try reader.number(value, key: key, in: dpiRange)
            case "page_images":
                configuration.pageImages = try reader.boolean(value, key: key)
            case "thumbnails":
                var boxes: [Int] = []
                for item in try reader.list(value, key: key) { boxes.append(try reader.integer(item, key: key, in: thumbnailBoxRange)) }
                guard Set(boxes).count == boxes.count else { throw reader.error(value, key: key, "box sizes must be different") }
                configuration.thumbnailBoxes = boxes.sorted()
            case "workers":
                configuration.workers = try reader.workers(value, key: key)
            case "max_pages_in_flight":
                configuration.maxPagesInFlight = try reader.integer(value, key: key, in: pagesInFlightRange)
            case "page_timeout":
                configuration.pageTimeout = try reader.number(value, key: key, in: pageTimeoutRange)
            case "png":
                let name = try reader.string(value, key: key)
                guard let preset = PNGCompression(rawValue: name) else {
                    throw reader.error(value, key: key, "expected one of \(PNGCompression.allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'")
                }
                configuration.png = preset
            case "passwords":
                guard let map = value.mapping else { throw reader.error(value, key: key, "expected a map of file name or glob to password") }
                configuration.passwords = []
                for (pattern, passwordNode) in map {
                    let ruleKey = "\(key).\(pattern.string ?? "?")"
                    var password = try reader.string(passwordNode, key: ruleKey)
                    // `env:NAME` keeps secrets out of the file (CI secrets arrive as variables).
                    if password.hasPrefix("env:") {
                        let name = String(password.dropFirst(4))
                        guard let value = environment[name] else {
                            throw reader.error(passwordNode, key: ruleKey, "the environment variable \(name) is not set; export it or write the password itself")
                        }
                        password = value
                    }
                    configuration.passwords.append(PasswordRule(pattern: try reader.string(pattern, key: key), password: password))
                }
            default:
                let known = ["inputs", "output", "dpi", "page_images", "thumbnails", "workers", "max_pages_in_flight", "page_timeout", "png", "passwords"]
                throw reader.error(keyNode, key: key, "unknown key; known keys are \(known.joined(separator: ", "))")
            }
        }
        if !configuration.pageImages && configuration.thumbnailBoxes.isEmpty {
            throw ConfigurationError(file: file, key: "page_images",
                                     message: "with page_images: false, list at least one thumbnail box, or there is nothing to write")
        }
        return configuration
    }
}

/// Typed reads of YAML nodes that fail with the node's line.
private struct YAMLReader {
    let file: String

    func error(_ node: Node, key: String?, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, line: node.mark.map { $0.line }, key: key, message: message)
    }

    func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): "'\(scalar.string)'"
        case .mapping: "a map"
        case .sequence: "a list"
        }
    }

    func string(_ node: Node, key: String) throws(ConfigurationError) -> String {
        guard case .scalar(let scalar) = node else { throw error(node, key: key, "expected text, got \(describe(node))") }
        return scalar.string
    }

    func boolean(_ node: Node, key: String) throws(ConfigurationError) -> Bool {
        guard case .scalar(let scalar) = node, let value = Bool(scalar.string.lowercased()) else {
            throw error(node, key: key, "expected true or false, got \(describe(node))")
        }
        return value
    }

    func list(_ node: Node, key: String) throws(ConfigurationError) -> [Node] {
        guard case .sequence(let sequence) = node else { throw error(node, key: key, "expected a list, got \(describe(node))") }
        return Array(sequence)
    }

    func stringList(_ node: Node, key: String) throws(ConfigurationError) -> [String] {
        if case .scalar(let scalar) = node { return [scalar.string] }
        var strings: [String] = []
        for item in try list(node, key: key) { strings.append(try string(item, key: key)) }
        return strings
    }

    func number(_ node: Node, key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard case .scalar(let scalar) = node, let value = Double(scalar.string), value.isFinite else {
            throw error(node, key: key, "expected a number from \(format(range.lowerBound)) to \(format(range.upperBound)), got \(describe(node))")
        }
        guard range.contains(value) else {
            throw error(node, key: key, "\(scalar.string) is outside the allowed \(format(range.lowerBound))...\(format(range.upperBound))")
        }
        return value
    }

    func integer(_ node: Node, key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard case .scalar(let scalar) = node, let value = Int(scalar.string) else {
            throw error(node, key: key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), got \(describe(node))")
        }
        guard range.contains(value) else {
            throw error(node, key: key, "\(value) is outside the allowed \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func workers(_ node: Node, key: String) throws(ConfigurationError) -> Configuration.Workers {
        let range = Configuration.workerRange
        if case .scalar = node { return Configuration.Workers(all: try integer(node, key: key, in: range)) }
        guard let map = node.mapping else {
            throw error(node, key: key, "expected a number or a map of open, render, thumbnails, encode")
        }
        var workers = Configuration.Workers()
        for (stageNode, value) in map {
            let stage = stageNode.string ?? ""
            let count = try integer(value, key: "\(key).\(stage)", in: range)
            switch stage {
            case "open": workers.open = count
            case "render": workers.render = count
            case "thumbnails": workers.thumbnails = count
            case "encode": workers.encode = count
            default: throw error(stageNode, key: "\(key).\(stage)", "unknown stage; stages are open, render, thumbnails, encode")
            }
        }
        return workers
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
