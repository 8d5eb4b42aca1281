import Testing

@testable import FeedShell

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

@Suite("Script lines")
struct ScriptLinesTests {
    @Test func numbersLinesAndJoinsContinuations() {
        let text = "lookup \\\n  1386867488\nepisodes\r\nshow \\\\\n\nquit\n"
        let lines = Array(ScriptLines(text: text, source: "s.feedsh"))
        #expect(
            lines == [
                ScriptLine(text: "lookup   1386867488", location: "s.feedsh:1"),
                ScriptLine(text: "episodes", location: "s.feedsh:3"),
                ScriptLine(text: "show \\\\", location: "s.feedsh:4"),
                ScriptLine(text: "", location: "s.feedsh:5"),
                ScriptLine(text: "quit", location: "s.feedsh:6"),
            ]
        )
    }

    @Test func commandTextHasNoLocation() {
        #expect(Array(ScriptLines(text: "a; b", source: nil)) == [ScriptLine(text: "a; b", location: nil)])
    }
}
