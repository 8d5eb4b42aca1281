import Downloads
import Foundation
import LineEditor
import PlainText
import ShellKit
import Testing

@testable import FeedShell

@Suite("Completion")
struct CompleterTests {
    let specs = CommandRegistry.standard.specs
    let snapshot = CompletionSnapshot(episodes: [
        .init(number: 1, id: "e1", title: "One", status: .downloaded(bytes: 10)),
        .init(number: 2, id: "e2", title: "Two", status: .downloading(nil)),
        .init(number: 3, id: "e3", title: "Three", status: .paused(bytes: 5, total: 10)),
        .init(number: 4, id: "e4", title: "Four", status: .none),
        .init(number: 10, id: "e10", title: "Ten", status: .failed("HTTP 404")),
    ])

    private func complete(
        _ text: String,
        in snapshot: CompletionSnapshot? = nil,
        live: [DownloadID: DownloadProgress] = [:]
    ) -> ShellKit.Completion {
        let snapshot = snapshot ?? self.snapshot
        let offers = CommandRegistry.standard.episodeOffers
        return Completer(specs: specs).complete(text) { snapshot.items($0, live: live, offers: offers) }
    }

    private func words(_ text: String) -> [String] {
        complete(text).candidates.map(\.word)
    }

    @Test func commandNames() {
        #expect(words("epi") == ["episodes"])
        #expect(words("e") == ["episodes", "exit", "export"])
        #expect(words("lookup; ep") == ["episodes"])
        #expect(complete("epi").replacing == 3)
        #expect(words("zzz").isEmpty)
    }

    @Test func flags() {
        #expect(words("lookup --l") == ["--limit"])
        #expect(words("lookup 1 --limit 3 --").isEmpty)
        #expect(words("met search x --") == ["--medium", "--has-images", "--limit"])
        #expect(words("cancel all --") == ["--yes"])
    }

    @Test func flagValuesFromTheSpec() {
        #expect(words("met search x --medium Pa") == ["Paintings"])
        #expect(words("met search x --medium=Sc") == ["--medium=Sculpture"])
        #expect(complete("met search x --medium=Sc").candidates.first?.display == "Sculpture")
    }

    @Test func selectorsCompleteAfterACommaOrADash() {
        let afterComma = complete("get 3,").candidates
        #expect(afterComma.map(\.word) == ["3,3", "3,4", "3,10"])
        #expect(afterComma.map(\.display) == ["3", "4", "10"])
        #expect(complete("get 3,").replacing == 2)
        #expect(words("get 3-1") == ["3-10"])
    }

    @Test func theProgressShownIsTheCurrentOne() {
        let live: [DownloadID: DownloadProgress] = ["e2": DownloadProgress(bytes: 35, total: 100, bytesPerSecond: nil)]
        #expect(complete("pause ", live: live).candidates.map(\.note) == ["Two (35% downloading)"])
    }

    @Test func quotedAndEscapedPathsComplete() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh paths \(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data().write(to: root.appendingPathComponent("my script.feedsh"))
        let escaped = Tokenizer.escape(root.path + "/")
        let typed = "source " + escaped + "my\\ s"
        let completion = complete(typed)
        #expect(completion.candidates.map(\.word) == [escaped + "my\\ script.feedsh"])
        #expect(completion.replacing == (escaped + "my\\ s").unicodeScalars.count)
        // The word inserted reads back as the path.
        #expect(
            try Tokenizer.statements("source " + completion.candidates[0].word) == [
                ["source", root.path + "/my script.feedsh"]
            ]
        )
        let quoted = complete("source '" + root.path + "/my s")
        #expect(quoted.candidates.count == 1)
    }

    @Test func metVerbsAndSongNumbers() {
        #expect(words("met ") == ["search", "object", "image"])
        #expect(words("met o") == ["object"])
        let songs = CompletionSnapshot(episodes: [], tracks: ["Carrier Wave", "Port 8080"])
        let completion = complete("preview ", in: songs)
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
        let candidates = complete("resume ").candidates
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
        let all = complete("source \(base)").candidates
        #expect(all.map(\.word) == [Tokenizer.escape(base) + "scripts/", Tokenizer.escape(base) + "setup.feedsh"])
        #expect(all.map(\.isFinal) == [false, true])
        #expect(words("source \(base)se") == [Tokenizer.escape(base) + "setup.feedsh"])
        #expect(words("source \(base).h") == [Tokenizer.escape(base) + ".hidden"])
    }

    @Test func openCompletesSearchResults() {
        let withResults = CompletionSnapshot(episodes: [], searchResults: ["Loopback Radio", "Radio Waves Weekly"])
        let candidates = complete("open ", in: withResults).candidates
        #expect(candidates.map(\.word) == ["1", "2"])
        #expect(candidates.map(\.note) == ["Loopback Radio", "Radio Waves Weekly"])
    }

    @Test func helpCompletesCommandNames() {
        #expect(words("help lo") == ["lookup"])
    }
}
