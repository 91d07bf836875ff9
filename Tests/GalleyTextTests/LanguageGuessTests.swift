import Foundation
import GalleyTestSupport
@testable import GalleyText
import Testing

/// Text whose markup and layout give no language (Debian's DocBook manuals in German and
/// French have no `lang` anywhere) is given the language its letters clearly read as, so it
/// is hyphenated as that language; unclear, short or declared text is left as it was.
@Suite struct LanguageGuessTests {
    /// A guess reads its sample and nothing after it. textcat read past the length it was given,
    /// up to a NUL, so this text (from a table the markup fuzzer made, English that scores
    /// close to Scots) was read as English or as nothing depending on the bytes that followed
    /// it, and an article parsed whole and in pieces got different languages.
    @Test func aGuessReadsOnlyItsSample() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Tests/GalleyTextTests/LanguageSamples/english-close-to-scots.txt")
        var sample = [UInt8](try Data(contentsOf: url))
        // Exactly as long as the longest sample read, so what follows is never part of it.
        sample += sample.prefix(LanguageGuesser.maximumSample - sample.count)
        #expect(sample.count == LanguageGuesser.maximumSample)
        let alone = LanguageGuesser.shared.guess(sample)
        for tail in ["aaaa bbbb cccc dddd eeee", "der die das und ist nicht", "zzzzqqqq xxxx", "the and of to"] {
            let followed = sample + Array(String(repeating: tail + " ", count: 40).utf8)
            #expect(LanguageGuesser.shared.guess(followed) == alone, "followed by \"\(tail)\"")
        }
        #expect(LanguageGuesser.shared.guess(sample) == alone)
    }

    static let german = """
        Bevor Sie anfangen, sollten Sie sich überlegen, ob das Programm, das Sie paketieren möchten, \
        nicht schon in der Distribution enthalten ist. Lesen Sie dazu die Liste der Pakete, die gerade \
        bearbeitet werden, und fragen Sie auf der Mailingliste nach, wenn Sie sich nicht sicher sind. \
        Die Arbeit an einem Paket beginnt meistens mit dem Herunterladen der ursprünglichen Quellen, \
        die anschließend entpackt, übersetzt und in einer sauberen Umgebung geprüft werden müssen.
        """
    static let french = """
        Avant de commencer, demandez-vous si le logiciel que vous souhaitez empaqueter ne se trouve pas \
        déjà dans la distribution. Consultez pour cela la liste des paquets en cours de préparation, et \
        posez la question sur la liste de diffusion si vous avez le moindre doute. Le travail sur un paquet \
        commence généralement par le téléchargement des sources d'origine, qui doivent ensuite être \
        décompressées, compilées et vérifiées dans un environnement propre.
        """
    static let english = """
        Before you start, ask yourself whether the program you would like to package is not already part \
        of the distribution. Read the list of packages that are being worked on for that, and ask on the \
        mailing list when you are not sure. Work on a package usually begins with downloading the original \
        sources, which must then be unpacked, compiled and checked in a clean environment. Only then \
        is it worth writing the files that describe how the package is built.
        """

    @Test(arguments: [(german, "de"), (french, "fr"), (english, "en")])
    func proseOfAFewSentencesIsRecognised(sample: String, language: String) {
        #expect(LanguageGuesser.shared.guess(Array(sample.utf8)) == language)
    }

    @Test func shortOrMixedTextGivesNoGuess() {
        // Under the minimum: a line of English is as close to Scots.
        #expect(LanguageGuesser.shared.guess(Array("Hello world, this is a short test.".utf8)) == nil)
        // Half German, half French: two languages score alike.
        let halves = String(Self.german.prefix(250)) + " " + String(Self.french.prefix(250))
        #expect(LanguageGuesser.shared.guess(Array(halves.utf8)) == nil)
        // Bytes that are not UTF-8 never reach textcat: no guess, even around German prose.
        let noise = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) | 0x80 }
        #expect(LanguageGuesser.shared.guess(Array(Self.german.utf8) + noise) == nil)
        #expect(LanguageGuesser.shared.guess(Array(Self.german.utf8)) == "de")
    }

    @Test func profileNamesBecomeLanguageTags() {
        #expect(LanguageGuesser.tag(fromProfileName: "de--utf8") == "de")
        #expect(LanguageGuesser.tag(fromProfileName: "zh-CN-utf8") == "zh-CN")
        #expect(LanguageGuesser.tag(fromProfileName: "az-cyrillic-utf8") == "az-Cyrl")
        #expect(LanguageGuesser.tag(fromProfileName: "haw-utf8") == "haw")
        #expect(LanguageGuesser.tag(fromProfileName: "UNKNOWN") == nil)
    }

    private static func parse(_ html: String, layoutLanguage: String? = nil) -> ParsedArticle {
        var base = ArticleLayout(name: "guess").base
        base.language = layoutLanguage
        base.hyphens = .auto
        return MarkupParser(base: base).parse(html: Array(html.utf8), baseURL: nil)
    }

    private static func languages(_ article: ParsedArticle) -> Set<String?> {
        Set(article.text.styleRuns.map(\.value.language))
    }

    @Test func anUndeclaredArticleTakesTheLanguageOfItsProseAndIsHyphenatedInIt() throws {
        // Code in it reads as English whatever the prose: it is left out of the sample.
        let code = "<pre>for package in list; do apt-get source --download-only $package; done</pre>"
        let html = "<html><body><p>\(Self.german)</p>\(code)<p>\(Self.german)</p></body></html>"
        let article = Self.parse(html)
        #expect(article.guessedLanguage == "de")
        #expect(Self.languages(article) == ["de"])

        var layout = ArticleLayout(name: "narrow")
        (layout.pageWidth, layout.pageHeight) = (200, 2000)
        layout.inset = .init(all: 20)
        let lines = try typesetAll(article.text, layout, fonts: sharedFonts).flatMap(\.columns).flatMap(\.lines)
        #expect(lines.contains { $0.isHyphenated }, "German prose in a 160 pt column, hyphenated as German")
    }

    @Test func aDeclaredLanguageIsKeptAndNotGuessed() {
        // The markup's lang wins, even when the text reads otherwise.
        let declared = Self.parse("<html lang=en><body><p>\(Self.german)</p></body></html>")
        #expect(declared.guessedLanguage == nil)
        #expect(Self.languages(declared) == ["en"])
        // So does the layout's language.
        let layout = Self.parse("<html><body><p>\(Self.german)</p></body></html>", layoutLanguage: "fr")
        #expect(layout.guessedLanguage == nil)
        #expect(Self.languages(layout) == ["fr"])
        // A part with its own lang keeps it; the rest is guessed from the rest.
        let mixed = Self.parse("<html><body><p>\(Self.french)</p><p lang=en>\(Self.english)</p></body></html>")
        #expect(mixed.guessedLanguage == "fr")
        #expect(Self.languages(mixed) == ["fr", "en"])
        // HTML's pragma `<meta http-equiv="content-language">` gives the root's default.
        let pragma = Self.parse("<html><head><meta http-equiv=\"Content-Language\" content=\"fr\"></head><body><p>\(Self.german)</p></body></html>")
        #expect(pragma.guessedLanguage == nil)
        #expect(pragma.language == "fr")
        #expect(Self.languages(pragma) == ["fr"])
        // A list of languages in it sets none, so the letters are read.
        let list = Self.parse("<html><head><meta http-equiv=\"content-language\" content=\"fr, en\"></head><body><p>\(Self.german)</p></body></html>")
        #expect(list.guessedLanguage == "de")
        // Too little text: nothing guessed, nothing given.
        let short = Self.parse("<html><body><p>Guten Tag.</p></body></html>")
        #expect(short.guessedLanguage == nil)
        #expect(Self.languages(short) == [nil])
    }

    @Test func plainTextIsGuessedToo() {
        let article = MarkupParser(base: ArticleLayout(name: "plain").base).parse(plainText: Array((Self.french + "\n\n" + Self.french).utf8))
        #expect(article.guessedLanguage == "fr")
    }
}
