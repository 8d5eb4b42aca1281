import Foundation
import Testing

@testable import LineEditor

@Suite("Line editor history")
struct LineEditorTests {
    private func temporaryHistory() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-history-\(UUID().uuidString)")
            .appendingPathComponent("state/history")
    }

    @Test func keepsMeaningfulLinesOnceInOrder() throws {
        let editor = try #require(LineEditor(programName: "feedsh-test"))
        for line in ["lookup", "", "   ", " secret", "episodes", "episodes", "show 2", "lookup"] {
            editor.addToHistory(line)
        }
        #expect(editor.historyEntries == ["lookup", "episodes", "show 2", "lookup"])
    }

    @Test func savesWithMode0600AndLoadsBack() throws {
        let file = temporaryHistory()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent().deletingLastPathComponent()) }
        do {
            let editor = try #require(LineEditor(programName: "feedsh-test", historyFile: file))
            editor.addToHistory("lookup 1386867488")
            editor.addToHistory("search \"caf\u{E9} \u{97F3}\"")
            editor.saveHistory()
        }
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let reloaded = try #require(LineEditor(programName: "feedsh-test", historyFile: file))
        #expect(reloaded.historyEntries == ["lookup 1386867488", "search \"caf\u{E9} \u{97F3}\""])
    }

    @Test func historyIsCapped() throws {
        let editor = try #require(LineEditor(programName: "feedsh-test", historySize: 3))
        for n in 1...5 { editor.addToHistory("show \(n)") }
        #expect(editor.historyEntries == ["show 3", "show 4", "show 5"])
    }
}

@Suite("Completion listing")
struct CompletionListingTests {
    @Test func numbersLineUpAndNotesAreCutToTheWidth() {
        let candidates = [
            LineEditor.Completion.Candidate("3", note: "The ETag Whisperer"),
            LineEditor.Completion.Candidate("12", note: "A title far too long for a narrow terminal"),
        ]
        #expect(
            LineEditor.listing(candidates, columns: 30) == [
                " 3  The ETag Whisperer", "12  A title far too long for …",
            ]
        )
    }

    @Test func wordsWithoutNotesGoInColumns() {
        let candidates = ["episodes", "exit", "get", "help", "history", "image", "lookup"].map {
            LineEditor.Completion.Candidate($0)
        }
        #expect(
            LineEditor.listing(candidates, columns: 30) == [
                "episodes  help      lookup", "exit      history", "get       image",
            ]
        )
    }

    @Test func displayTextIsListedAndLongListsAreCut() {
        let candidates = (1...50).map { LineEditor.Completion.Candidate("1,\($0)", display: "\($0)", note: "n") }
        let lines = LineEditor.listing(candidates, columns: 80, maxLines: 40)
        #expect(lines.first == " 1  n" && lines.count == 41 && lines.last == "(10 more)")
    }

    @Test func eraseGoesRowByRowNeverBelowTheCursor() {
        #expect(
            LineEditor.eraseRows(up: 2, count: 3) == "\r\u{1B}[2A\u{1B}[2K\u{1B}[B\u{1B}[2K\u{1B}[B\u{1B}[2K\u{1B}[2A"
        )
        #expect(!LineEditor.eraseRows(up: 5, count: 6).contains("\u{1B}[J"))
    }
}
