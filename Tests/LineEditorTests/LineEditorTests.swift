import Foundation
import LineEditor
import Testing

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
