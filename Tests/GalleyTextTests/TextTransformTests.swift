import GalleyText
import Testing

/// `text-transform` (CSS 2.1 §16.5): the case the text is set in, inherited.
@Suite struct TextTransformTests {
    @Test func textIsSetInTheCaseTheStyleAsks() {
        let html = "<style>.up { text-transform: uppercase } .low { text-transform: lowercase } .cap { text-transform: capitalize }</style>"
            + "<p class='up'>Filler <em>text</em> straße</p><p class='low'>LOUD Text</p>"
            + "<p class='cap'>filler text, <b>bold</b>er words and o'clock</p><p class='cap'>next <span class='none' style='text-transform: none'>plain</span></p>"
        #expect(GeneratedContentTests.paragraphs(html) == ["FILLER TEXT STRASSE", "loud text", "Filler Text, Bolder Words And O'clock", "Next plain"])
    }
}
