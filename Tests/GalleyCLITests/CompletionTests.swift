import Foundation
import GalleyTestSupport
import Testing

/// The bash completion `galley --generate-completion-script bash` writes, called as bash calls
/// it on a Tab: COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set, `_galley` run, COMPREPLY read.
@Suite struct CompletionTests {
    let command = GalleyCommandTests()

    /// What a Tab after `line` offers, in `folder`.
    func complete(_ line: String, in folder: ScratchFolder) throws -> Set<String> {
        let script = try command.galley(["--generate-completion-script", "bash"], in: folder.url)
        try #require(script.status == 0)
        try script.stdout.write(to: folder.path("galley.bash"), atomically: true, encoding: .utf8)
        let outcome = try PeerTools.run("/bin/bash", ["-c", """
            source ./galley.bash
            read -r -a COMP_WORDS <<< "$1"
            [[ "$1" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
            previous=""; (( COMP_CWORD > 0 )) && previous="${COMP_WORDS[COMP_CWORD - 1]}"
            _galley galley "${COMP_WORDS[COMP_CWORD]}" "$previous"
            printf '%s\\n' "${COMPREPLY[@]}"
            """, "bash", line], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return Set(outcome.stdout.split(separator: "\n").map(String.init))
    }

    @Test func fileArgumentsCompleteFileNamesAndValuesAreOffered() throws {
        let folder = try ScratchFolder("completion")
        for file in ["pipeline.yml", "pipeline-ci.yaml", "pipes.txt", "article.html", "articles/a.pdf"] {
            try FileManager.default.createDirectory(at: folder.path(file).deletingLastPathComponent(), withIntermediateDirectories: true)
            try "x".write(to: folder.path(file), atomically: true, encoding: .utf8)
        }
        #expect(try complete("galley run --config pip", in: folder) == ["pipeline.yml", "pipeline-ci.yaml"])
        #expect(try complete("galley inspect art", in: folder) == ["article.html", "articles"])
        #expect(try complete("galley render --output art", in: folder) == ["articles"])
        #expect(try complete("galley thumbnail art", in: folder) == ["article.html", "articles"])
        #expect(try complete("galley diff art", in: folder) == ["article.html", "articles"])
        #expect(try complete("galley run --format ", in: folder) == ["png", "webp", "jpeg", "avif"])
        #expect(try complete("galley render --format w", in: folder) == ["webp"])
        #expect(try complete("galley run --png ", in: folder) == ["fast", "balanced", "small"])
        #expect(try complete("galley thumbs --freedesktop --sizes x", in: folder) == ["x-large", "xx-large"])
    }
}
