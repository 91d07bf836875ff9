import CGalleyHyphen
import CHyphen
import Foundation
import Testing

/// Galley's loader of libhyphen dictionaries (`galley_hyphen_load`) against libhyphen's own
/// (`hnj_hyphen_load`): for every dictionary the install script installs, the two automata
/// are the same, state for state (each state named by its string: the path of characters
/// from the first state), with the same patterns, replacements, fallbacks and transitions, the
/// same settings and the same second level. libhyphen hyphenates with either, so every word
/// breaks where it did; the German dictionary, which libhyphen took seconds to load, is among
/// them.
struct HyphenLoaderTests {
    /// The dictionary files themselves (not the links that name them for other regions).
    static let dictionaries: [String] = {
        let folder = "/usr/share/hyphen"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".dic") }.sorted().map { "\(folder)/\($0)" }.filter { path in
            ((try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) ?? nil) == .typeRegular
        }
    }()

    @Test func theInstallScriptsDictionariesAreThere() {
        // hyphen-en-us, -de, -fr, -es, -it, -ru, -el (scripts/install-deps.sh).
        for language in ["en_US", "de_DE", "fr", "es", "it", "ru", "el"] {
            #expect(Self.dictionaries.contains { $0.contains("hyph_\(language)") }, "no dictionary for \(language)")
        }
    }

    @Test(arguments: dictionaries)
    func galleysLoaderBuildsLibhyphensAutomaton(path: String) throws {
        let theirs = try #require(hnj_hyphen_load(path))
        defer { hnj_hyphen_free(theirs) }
        let ours = try #require(galley_hyphen_load(path))
        defer { hnj_hyphen_free(ours) }
        try Self.compare(theirs, ours, level: "\(path)", depth: 0)
    }

    /// What a state holds, named by strings rather than state numbers.
    struct State: Equatable {
        var match: String?
        var repl: String?
        var replindex: Int8
        var replcut: Int8
        var fallback: String?
        var transitions: [UInt8]
    }

    static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        pointer.map { String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0)), as: UTF8.self) }
    }

    /// Each state by its string (bytes shown as hex, since single-byte dictionaries are not UTF-8).
    static func states(_ dict: UnsafeMutablePointer<HyphenDict>) -> [String: State] {
        let count = Int(dict.pointee.num_states)
        var names = [String?](repeating: nil, count: count)
        names[0] = ""
        var queue = [0], head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            let s = dict.pointee.states[state]
            for k in 0..<Int(s.num_trans) {
                let next = Int(s.trans[k].new_state)
                if names[next] == nil {
                    names[next] = names[state]! + String(format: "%02x", UInt8(bitPattern: s.trans[k].ch))
                    queue.append(next)
                }
            }
        }
        var result: [String: State] = [:]
        for state in 0..<count {
            guard let name = names[state] else { continue }
            let s = dict.pointee.states[state]
            let fallback = s.fallback_state >= 0 ? names[Int(s.fallback_state)] : nil
            let transitions = (0..<Int(s.num_trans)).map { UInt8(bitPattern: s.trans[$0].ch) }.sorted()
            // libhyphen leaves the replacement fields of a state without a pattern as malloc
            // gave them, and reads them only for a state with one.
            let pattern = s.match != nil
            result[name] = State(match: string(s.match), repl: string(s.repl), replindex: pattern ? s.replindex : 0,
                                 replcut: pattern ? s.replcut : 0, fallback: fallback, transitions: transitions)
        }
        return result
    }

    static func compare(_ theirs: UnsafeMutablePointer<HyphenDict>, _ ours: UnsafeMutablePointer<HyphenDict>, level: String, depth: Int) throws {
        let a = theirs.pointee, b = ours.pointee
        #expect(a.num_states == b.num_states, "\(level): \(a.num_states) states, ours \(b.num_states)")
        #expect([a.lhmin, a.rhmin, a.clhmin, a.crhmin] == [b.lhmin, b.rhmin, b.clhmin, b.crhmin], "\(level): hyphen minimums")
        #expect(a.utf8 == b.utf8 && a.nohyphenl == b.nohyphenl && string(a.nohyphen) == string(b.nohyphen), "\(level): NOHYPHEN, charset")
        let csetA = withUnsafeBytes(of: a.cset) { Array($0) }, csetB = withUnsafeBytes(of: b.cset) { Array($0) }
        #expect(csetA == csetB, "\(level): character set")
        let statesA = states(theirs), statesB = states(ours)
        #expect(statesA.count == Int(a.num_states) && statesB.count == Int(b.num_states), "\(level): every state reachable")
        let differing = statesA.keys.filter { statesA[$0] != statesB[$0] }.sorted()
        #expect(differing.isEmpty, "\(level): \(differing.count) states differ, first \(differing.first.map { "\($0): \(String(describing: statesA[$0])) against \(String(describing: statesB[$0]))" } ?? "")")
        #expect((a.nextlevel == nil) == (b.nextlevel == nil), "\(level): second level")
        if depth == 0, let nextA = a.nextlevel, let nextB = b.nextlevel {
            try compare(nextA, nextB, level: "\(level) (second level)", depth: 1)
        }
    }
}
