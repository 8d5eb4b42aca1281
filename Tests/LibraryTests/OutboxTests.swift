import FeedKit
import Foundation
import Testing

@testable import Library

/// Sync's outbox: every change a server should hear of is recorded with the
/// change itself, sync set up or not.
@Suite("Sync outbox")
struct OutboxTests {
    func library() async throws -> (Library, Int64, [Int64]) {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-outbox-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        let (podcast, _) = try await library.subscribe(feedURL: URL(string: "https://feeds.example/a.xml")!, title: "A")
        var feed = Feed()
        feed.title = "A"
        feed.items = (1...3).map { n in
            var item = FeedItem(
                guid: "g\(n)",
                title: "E\(n)",
                enclosure: Enclosure(url: URL(string: "https://media.example/\(n).mp3")!)
            )
            if n != 3 { item.duration = .seconds(1800) }
            return item
        }
        try await library.store(feed, for: podcast.id!, validators: (nil, nil))
        return (library, podcast.id!, try await library.episodes(of: podcast.id!).compactMap(\.id).sorted())
    }

    @Test func eachChangeRecordsItsAction() async throws {
        let (library, podcastID, ids) = try await library()
        #expect(try await library.pendingSubscriptionChanges().map(\.subscribed) == [true])
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        // Many marked played: one action each, to the end.
        try await library.mark(ids, .played, at: at)
        var actions = try await library.pendingActions(limit: 100)
        #expect(actions.map(\.kind) == [.play, .play, .play])
        #expect(actions.map(\.position) == [1800, 1800, 1])
        #expect(actions.map(\.total) == [1800, 1800, 1])
        #expect(actions.allSatisfy { $0.at == at && $0.podcastURL == "https://feeds.example/a.xml" })
        #expect(actions[0].episodeURL == "https://media.example/1.mp3" && actions[0].guid == "g1")
        #expect(try await library.episode(ids[0])?.stateChanged == at)
        // Marking old is not play state; a save while playing is not an action.
        try await library.mark([ids[0]], .old)
        try await library.savePosition(ids[0], seconds: 60)
        #expect(try await library.pendingActions(limit: 100).count == 3)
        try await library.savePosition(ids[0], seconds: 95.7, startedAt: 60.2)
        try await library.mark([ids[1]], .unplayed)
        try await library.markDownloaded(ids[2])
        try await library.markDownloaded(ids[2], false)
        actions = try await library.pendingActions(limit: 100)
        #expect(actions.suffix(4).map(\.kind) == [.play, .new, .download, .delete])
        #expect(actions[3].started == 60 && actions[3].position == 95 && actions[3].total == 1800)
        // A row leaves only when acknowledged; the oldest go first.
        let first = try await library.pendingActions(limit: 2)
        try await library.acknowledgeActions(first.compactMap(\.id))
        #expect(try await library.outboxSize().actions == 5)
        #expect(try await library.pendingActions(limit: 100).first?.id == actions[2].id)

        let change = try await library.pendingSubscriptionChanges()
        try await library.unsubscribe(podcastID)
        // Acknowledging the add that was read does not take the newer removal.
        try await library.acknowledgeSubscriptionChanges(change)
        #expect(try await library.pendingSubscriptionChanges().map(\.subscribed) == [false])
    }
}
