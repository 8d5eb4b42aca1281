import Foundation
import Testing

@testable import ShellKit

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

/// Script input read from a descriptor: bounded lines, NUL bytes, CRLF.
@Suite struct ScriptInputTests {
    /// The lines `ScriptInput` reads from `bytes` through a pipe.
    func lines(_ bytes: [UInt8]) throws -> [ScriptLine] {
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.write(Data(bytes))
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        return Array(ScriptLines(fd: pipe.fileHandleForReading.fileDescriptor, source: "s"))
    }

    @Test func readsLinesWithAndWithoutAFinalNewline() throws {
        #expect(
            try lines(Array("a\r\nb\\\nc\nlast".utf8)) == [
                ScriptLine(text: "a", location: "s:1"), ScriptLine(text: "bc", location: "s:2"),
                ScriptLine(text: "last", location: "s:4"),
            ]
        )
    }

    @Test func aNulByteIsAnErrorOnItsLine() throws {
        let read = try lines(Array("help\nlo\u{0}okup\nepisodes\n".utf8))
        #expect(read.map(\.problem) == [nil, .nulByte, nil])
        #expect(read.map(\.location) == ["s:1", "s:2", "s:3"])
    }

    /// A 10 MB line is refused (and skipped) while the lines around it are read.
    @Test func anOverlongLineIsRefusedAndSkipped() throws {
        var bytes = Array("help\n".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 10_000_000)
        bytes += Array("\nepisodes\n".utf8)
        let read = try lines(bytes)
        #expect(read.map(\.text) == ["help", "", "episodes"])
        #expect(read[1].problem == .lineTooLong(limit: ScriptInput.maxLineLength))
        #expect(read[2].location == "s:3")
    }
}

@Suite("Script input that never ends")
struct EndlessScriptInputTests {
    /// `feedsh -f /dev/zero`: the line limit holds for a line without an end, said
    /// at once instead of after reading for ever.
    @Test func aLineThatNeverEndsIsRefusedAtOnce() throws {
        let fd = open("/dev/zero", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var input = ScriptInput(fd: fd)
        #expect(input.next() == .failure(.lineTooLong(limit: ScriptInput.maxLineLength)))
        // Skipping the rest of it stops after a bounded amount: the input ends.
        #expect(input.next() == nil)
    }
}
