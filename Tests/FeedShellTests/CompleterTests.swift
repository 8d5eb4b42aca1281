import Downloads
import Foundation
import LineEditor
import Testing

@testable import FeedShell

@Suite("Completion")
struct CompleterTests {
    let completer = Completer(registry: .standard)
    let snapshot = CompletionSnapshot(episodes: [
        .init(number: 1, title: "One", status: .downloaded(bytes: 10)),
        .init(number: 2, title: "Two", status: .downloading(nil)),
        .init(number: 3, title: "Three", status: .paused(bytes: 5, total: 10)),
        .init(number: 4, title: "Four", status: .none),
        .init(number: 10, title: "Ten", status: .failed("HTTP 404")),
    ])

    private func words(_ text: String) -> [String] {
        completer.complete(text, snapshot: snapshot).candidates.map(\.word)
    }

    @Test func commandNames() {
        #expect(words("epi") == ["episodes"])
        #expect(words("e") == ["episodes", "exit"])
        #expect(words("lookup; ep") == ["episodes"])
        #expect(completer.complete("epi", snapshot: snapshot).replacing == 3)
        #expect(words("zzz").isEmpty)
    }

    @Test func flags() {
        #expect(words("lookup --l") == ["--limit"])
        #expect(words("lookup 1 --limit 3 --").isEmpty)
        #expect(words("met search x --") == ["--medium", "--has-images", "--limit"])
    }

    @Test func metVerbsAndSongNumbers() {
        #expect(words("met ") == ["search", "object", "image"])
        #expect(words("met o") == ["object"])
        let songs = CompletionSnapshot(episodes: [], tracks: ["Carrier Wave", "Port 8080"])
        let completion = completer.complete("preview ", snapshot: songs)
        #expect(completion.candidates.map(\.word) == ["1", "2"])
        #expect(completion.candidates.map(\.note) == ["Carrier Wave", "Port 8080"])
    }

    @Test(arguments: [
        ("get ", ["3", "4", "10"]),
        ("pause ", ["2"]),
        ("resume ", ["3", "10"]),
        ("cancel ", ["2", "3", "10"]),
        ("show ", ["1", "2", "3", "4", "10"]),
        ("show 1", ["1", "10"]),
        ("wait ", ["2"]),
        ("get 4 ", []),
    ])
    func episodeNumbersThatMakeSense(text: String, expected: [String]) {
        #expect(words(text) == expected)
    }

    @Test func candidatesCarryTitlesAndStatus() {
        let candidates = completer.complete("resume ", snapshot: snapshot).candidates
        #expect(candidates.map(\.note) == ["Three (50% paused)", "Ten (failed: HTTP 404)"])
    }

    @Test func sourceCompletesPaths() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-paths-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("scripts"),
            withIntermediateDirectories: true
        )
        try Data().write(to: root.appendingPathComponent("setup.feedsh"))
        try Data().write(to: root.appendingPathComponent(".hidden"))
        let base = root.path + "/"
        let all = completer.complete("source \(base)", snapshot: snapshot).candidates
        #expect(all.map(\.word) == [base + "scripts/", base + "setup.feedsh"])
        #expect(all.map(\.isFinal) == [false, true])
        #expect(words("source \(base)se") == [base + "setup.feedsh"])
        #expect(words("source \(base).h") == [base + ".hidden"])
    }

    @Test func openCompletesSearchResults() {
        let withResults = CompletionSnapshot(episodes: [], searchResults: ["Loopback Radio", "Radio Waves Weekly"])
        let candidates = completer.complete("open ", snapshot: withResults).candidates
        #expect(candidates.map(\.word) == ["1", "2"])
        #expect(candidates.map(\.note) == ["Loopback Radio", "Radio Waves Weekly"])
    }

    @Test func helpCompletesCommandNames() {
        #expect(words("help lo") == ["lookup"])
    }
}

@Suite("Status area")
struct StatusAreaTests {
    let progress = DownloadProgress(bytes: 500_000, total: 1_000_000, bytesPerSecond: 250_000)

    @Test func oneLinePerDownloadCutToWidth() {
        let lines = StatusArea.lines(
            [.init(label: "3 The ETag Whisperer", progress: progress), .init(label: "4 Starting", progress: nil)],
            width: 80
        )
        #expect(lines == ["[3] 50.0% of 1.0 MB, 250.0 kB/s, ETA 0:02  The ETag Whisperer", "[4] starting  Starting"])
        let narrow = StatusArea.lines([.init(label: "3 The ETag Whisperer", progress: progress)], width: 20)
        #expect(narrow.allSatisfy { TerminalText.width($0) <= 20 })
    }

    @Test func summaryWhenMoreThanFit() {
        let entries = (1...6).map { StatusArea.Entry(label: "\($0) Episode", progress: progress) }
        #expect(StatusArea.lines(entries, width: 80, maxLines: 4) == ["6 downloads: 50.0% of 6.0 MB, 1.5 MB/s"])
    }

    @Test func nothingWhenIdle() {
        #expect(StatusArea.lines([], width: 80).isEmpty)
    }
}
