/// A command line that cannot be split into words, such as one with an open quote.
public struct CommandLineSyntaxError: Error, Equatable, CustomStringConvertible {
    public let description: String
}

/// Splits command lines the way a POSIX shell does, without expansions.
///
/// - Words are separated by blanks; `;` outside quotes separates statements.
/// - `'...'` is literal; in `"..."` a backslash escapes `"`, `\`, `$` and `` ` ``
///   and is kept before anything else; outside quotes a backslash escapes any
///   character.
/// - `#` at the start of a word starts a comment that runs to the end of the line.
public enum Tokenizer {
    /// The statements of `line`, each a non-empty list of words.
    public static func statements(_ line: String) throws(CommandLineSyntaxError) -> [[String]] {
        var statements: [[String]] = []
        var words: [String] = []
        var word = ""
        var inWord = false
        var iterator = line.makeIterator()

        func endWord() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        func endStatement() {
            endWord()
            if !words.isEmpty { statements.append(words) }
            words = []
        }

        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\n", "\r", "\r\n":
                endWord()
            case ";":
                endStatement()
            case "#" where !inWord:
                endStatement()
                return statements
            case "'":
                inWord = true
                while true {
                    guard let next = iterator.next() else {
                        throw CommandLineSyntaxError(description: "unterminated single quote")
                    }
                    if next == "'" { break }
                    word.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard let next = iterator.next() else {
                        throw CommandLineSyntaxError(description: "unterminated double quote")
                    }
                    if next == "\"" { break }
                    if next == "\\" {
                        guard let escaped = iterator.next() else {
                            throw CommandLineSyntaxError(description: "unterminated double quote")
                        }
                        if !"\"\\$`".contains(escaped) { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
            case "\\":
                guard let escaped = iterator.next() else {
                    throw CommandLineSyntaxError(description: "line ends with a backslash")
                }
                inWord = true
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        endStatement()
        return statements
    }

    /// Quotes `word` so that ``statements(_:)`` reads it back as one word.
    public static func quote(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:,=@%+".contains($0) }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The statement being typed at the end of `line`, for completion: its finished
    /// words, and the word under the cursor (unquoted) with how many Unicode scalars
    /// it takes as typed, quotes and backslashes included. An open quote is allowed.
    public static func partial(_ line: String) -> PartialLine {
        var words: [String] = []
        var word = ""
        var raw = 0
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            let scalars = character.unicodeScalars.count
            if escaped {
                word.append(character)
                raw += scalars
                escaped = false
                continue
            }
            if let open = quote {
                raw += scalars
                if character == open {
                    quote = nil
                } else if open == "\"", character == "\\" {
                    escaped = true
                } else {
                    word.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                if inWord { words.append(word) }
                (word, raw, inWord) = ("", 0, false)
            case ";":
                words = []
                (word, raw, inWord) = ("", 0, false)
            case "'", "\"":
                quote = character
                inWord = true
                raw += 1
            case "\\":
                escaped = true
                inWord = true
                raw += 1
            default:
                word.append(character)
                inWord = true
                raw += scalars
            }
        }
        return PartialLine(words: words, current: word, replacing: raw)
    }

    /// `word` with blanks and the characters the tokenizer treats specially escaped
    /// by backslashes, for inserting a completed path.
    public static func escape(_ word: String) -> String {
        var out = ""
        for character in word {
            if " \t'\"\\;#$`&|<>()*?!".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}

/// The statement being typed, as ``Tokenizer/partial(_:)`` splits it.
public struct PartialLine: Sendable, Equatable {
    /// The finished words.
    public var words: [String]
    /// The word under the cursor, unquoted (empty after a blank).
    public var current: String
    /// Unicode scalars the current word takes as typed.
    public var replacing: Int
}
