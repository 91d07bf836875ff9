/// Text made safe for the place it is shown, one function per sink, used by every writer to
/// that sink. Names and messages come from files a user may not control (a file named
/// `fail\n::error title=x::y`, an ESC sequence in a title, Markdown in a picture's `src`), so
/// none of them may reach a terminal, a log, a workflow command, Markdown or HTML as anything
/// but text.
public enum Escape {
    /// For a terminal or a log line: every character that is not printable (C0 and C1
    /// controls, DEL, and the bidirectional controls that reorder what follows them) shown as
    /// `ls -b` shows it, `\n`, `\t`… or the octal of its UTF-8 bytes (`\033` for ESC), so a line
    /// stays one line and draws only what it says.
    public static func terminal(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnprintable) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isUnprintable(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\u{07}": out += "\\a"
            case "\u{08}": out += "\\b"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\u{0B}": out += "\\v"
            case "\u{0C}": out += "\\f"
            case "\r": out += "\\r"
            default:
                for byte in String(scalar).utf8 {
                    let octal = String(byte, radix: 8)
                    out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
                }
            }
        }
        return out
    }

    /// Whether `scalar` must not reach a terminal as it is.
    public static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true
        // Bidirectional embeddings, overrides and isolates, and the marks: they reorder or
        // hide the text around them ("Trojan Source").
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// For Markdown text (a paragraph or a table cell): every ASCII punctuation character that
    /// Markdown or GitHub's tables give a meaning (links, images, emphasis, HTML, entities, `|`)
    /// backslash-escaped, line breaks as spaces, and unprintable characters as `terminal` shows
    /// them.
    public static func markdown(_ text: String) -> String {
        var out = ""
        for character in terminal(text) {
            if "\\`*_{}[]<>()#+-.!|~&:".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// A Markdown code span showing `text` as it is: fenced with one more backtick than the
    /// longest run inside (backslashes are literal in code spans, so nothing else is escaped),
    /// `|` escaped for GitHub's tables (which split cells before reading spans), unprintable
    /// characters as `terminal` shows them.
    public static func markdownCode(_ text: String) -> String {
        let shown = terminal(text).reduce(into: "") { out, character in out += character == "|" ? "\\|" : String(character) }
        var longest = 0, run = 0
        for character in shown {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        // A span that starts or ends with a backtick needs a space to keep it off the fence
        // (one space each side is stripped when both are there).
        let padded = shown.hasPrefix("`") || shown.hasSuffix("`") ? " \(shown) " : shown
        return fence + padded + fence
    }

    /// For HTML text and double-quoted attribute values: `&`, `<`, `>` and `"` as references, and
    /// unprintable characters as `terminal` shows them (a control character has no place in
    /// HTML text, and a reader should see that the name holds one).
    public static func html(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in terminal(text) {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The message of a GitHub Actions workflow command (`::error ...::MESSAGE`): `%`, CR and
    /// LF percent-encoded as GitHub decodes them, and other unprintable characters as
    /// `terminal` shows them, so the command stays one line of the job log.
    public static func workflowData(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out += isUnprintable(scalar) ? terminal(String(scalar)) : String(scalar)
            }
        }
        return out
    }

    /// A property of a workflow command (`file=`, `title=`): `workflowData`, and `:` and `,`.
    public static func workflowProperty(_ text: String) -> String {
        workflowData(text).reduce(into: "") { out, character in
            out += character == ":" ? "%3A" : character == "," ? "%2C" : String(character)
        }
    }
}
