import Foundation
import Testing

@testable import PlainText

@Suite("Tokenizer")
struct TokenizerTests {
    @Test(arguments: [
        ("lookup", [["lookup"]]),
        ("  lookup   123  ", [["lookup", "123"]]),
        ("lookup; episodes", [["lookup"], ["episodes"]]),
        ("a;;b;", [["a"], ["b"]]),
        ("search 'hello world'", [["search", "hello world"]]),
        ("search \"it's\"", [["search", "it's"]]),
        (#"search "say \"hi\"""#, [["search", #"say "hi""#]]),
        (#"search "a\nb""#, [["search", #"a\nb"#]]),
        (#"search a\ b"#, [["search", "a b"]]),
        (#"search a\;b"#, [["search", "a;b"]]),
        ("search 'a;b'", [["search", "a;b"]]),
        ("search ''", [["search", ""]]),
        ("search a'b'c", [["search", "abc"]]),
        ("lookup # a comment; episodes", [["lookup"]]),
        ("# only a comment", []),
        ("search a#b", [["search", "a#b"]]),
        ("met search caf\u{E9} \u{97F3}", [["met", "search", "caf\u{E9}", "\u{97F3}"]]),
        ("", []),
    ])
    func splits(line: String, expected: [[String]]) throws {
        #expect(try Tokenizer.statements(line) == expected)
    }

    @Test(arguments: [
        ("search 'open", "unterminated single quote"),
        ("search \"open", "unterminated double quote"),
        ("search \"open\\", "unterminated double quote"),
        ("search end\\", "line ends with a backslash"),
    ])
    func rejects(line: String, message: String) {
        #expect(throws: CommandLineSyntaxError(description: message)) { try Tokenizer.statements(line) }
    }

    @Test(arguments: ["plain", "two words", "it's", "", "semi;colon", "#hash", "back\\slash"])
    func quoteRoundTrips(word: String) throws {
        #expect(try Tokenizer.statements("x " + Tokenizer.quote(word)) == [["x", word]])
    }
}
