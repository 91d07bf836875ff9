import CExtTextCat
import Foundation
import GalleyBase

/// The language of text whose markup and layout give none, guessed from its letters with
/// libexttextcat: LibreOffice's language guesser (Cavnar and Trenkle's n-gram profiles of
/// about 160 languages, Debian's `libexttextcat-data`). Real documents often declare no
/// language: Debian's DocBook manuals in German and French have no `lang` anywhere, and their
/// text was set unhyphenated (four such pages: 267 loose lines, 118 once their language is read).
///
/// A guess is taken only when it is clear: textcat lists every language scoring within 3% of
/// the best, and only a list of one is taken (a line of English comes out as Scots or English,
/// Norwegian as Danish or Norwegian: those give no guess). The sample is at least
/// `minimumSample` bytes of the text's prose, code left out (it reads as English whatever the
/// language around it). Chinese, Japanese and Korean are told apart by their scripts before
/// this (`MarkupParser.languageFromScript`).
public final class LanguageGuesser: Sendable {
    /// Where Debian installs the profiles and their list (`fpdb.conf`).
    public static let profileFolder = "/usr/share/libexttextcat/"

    /// One process-wide guesser: loading the profiles takes about 20 ms and 1 MB.
    public static let shared = LanguageGuesser(folder: profileFolder)

    /// Fewest bytes to guess from: shorter samples give several close languages.
    public static let minimumSample = 400
    /// Most bytes read: a few kilobytes of prose settle the language, and the time grows with
    /// the sample (about 1.5 ms for 8 KB).
    public static let maximumSample = 8192

    private let folder: String
    /// The classifier, loaded on first use; nil inside when the profiles cannot be read (then
    /// no text is guessed). textcat keeps its scores and output in the handle, so every
    /// classification goes through this mutex.
    private let state: Mutex<State>

    private enum State {
        case notLoaded
        case unavailable
        case loaded(Handle)
    }

    /// The classifier and the candidate list it fills; only ever used under `state`'s lock.
    private final class Handle {
        let classifier: UnsafeMutableRawPointer
        let candidates: UnsafeMutablePointer<candidate_t>
        init(classifier: UnsafeMutableRawPointer, candidates: UnsafeMutablePointer<candidate_t>) {
            (self.classifier, self.candidates) = (classifier, candidates)
        }
        deinit {
            textcat_ReleaseClassifyFullOutput(classifier, candidates)
            textcat_Done(classifier)
        }
    }

    init(folder: String) {
        self.folder = folder
        state = Mutex(.notLoaded)
    }

    /// The BCP 47 tag of the one language `sample` (UTF-8 text) clearly reads as; nil when it
    /// is shorter than `minimumSample`, when several languages score alike, or when the
    /// profiles are missing.
    public func guess(_ sample: [UInt8]) -> String? {
        guard sample.count >= Self.minimumSample else { return nil }
        // At most `maximumSample` bytes, cut before a UTF-8 continuation byte so the sample
        // stays valid UTF-8 (textcat reads it as UTF-8).
        var end = min(sample.count, Self.maximumSample)
        while end < sample.count, end > 0, sample[end] & 0xC0 == 0x80 { end -= 1 }
        // textcat reads its input as UTF-8 and documents nothing for invalid bytes: only valid
        // UTF-8 reaches it (the parser's samples always are).
        guard String(validating: sample[..<end], as: UTF8.self) != nil else { return nil }
        let folder = self.folder
        return state.withLock { state -> String? in
            if case .notLoaded = state {
                state = Self.load(folder: folder).map { .loaded($0) } ?? .unavailable
            }
            guard case .loaded(let handle) = state else { return nil }
            // textcat reads past the length it is given, up to a NUL: a sample handed over in
            // place was classified with whatever followed it (the rest of a longer sample, or an
            // array's spare capacity), so the same text read as English one time and as "English
            // or Scots" the next, and an article parsed whole and in pieces differed (FuzzMarkup).
            // It gets exactly the sample, NUL-terminated.
            var terminated = [CChar](repeating: 0, count: end + 1)
            for index in 0..<end { terminated[index] = CChar(bitPattern: sample[index]) }
            let count = terminated.withUnsafeBufferPointer { pointer in
                textcat_ClassifyFull(handle.classifier, pointer.baseAddress!, end, handle.candidates)
            }
            guard count == 1, let name = handle.candidates[0].name else { return nil }
            return Self.tag(fromProfileName: String(cString: name))
        }
    }

    private static func load(folder: String) -> Handle? {
        let list = folder + "fpdb.conf"
        guard FileManager.default.isReadableFile(atPath: list),
              let classifier = special_textcat_Init(list, folder) else { return nil }
        guard let candidates = textcat_GetClassifyFullOutput(classifier) else {
            textcat_Done(classifier)
            return nil
        }
        return Handle(classifier: classifier, candidates: candidates)
    }

    /// The BCP 47 tag of a profile's name in `fpdb.conf`: `de--utf8` → `de`, `zh-CN-utf8` →
    /// `zh-CN`, `az-cyrillic-utf8` → `az-Cyrl`; nil for a name of another form.
    static func tag(fromProfileName name: String) -> String? {
        guard name.hasSuffix("-utf8") else { return nil }
        let parts = name.dropLast(5).split(separator: "-").map { $0 == "cyrillic" ? "Cyrl" : String($0) }
        guard let primary = parts.first, (2...3).contains(primary.count), primary.allSatisfy(\.isLetter) else { return nil }
        return parts.joined(separator: "-")
    }
}
