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
}
