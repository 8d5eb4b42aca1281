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

    /// A play stop on an episode whose feed gives no length sends its position
    /// alone, not clamped to a made-up total.
    @Test func aStopWithoutALengthKeepsItsPosition() async throws {
        let (library, _, ids) = try await library()
        try await library.savePosition(ids[2], seconds: 725.4, startedAt: 30)
        let action = try #require(try await library.pendingActions(limit: 10).last)
        #expect(action.position == 725 && action.total == nil && action.started == nil)
    }

    /// The first sync with an account sends what was listened to before: one
    /// `play` per played or started episode without one waiting, stamped when its
    /// state changed, else when it was published (never newer than another
    /// device's news).
    @Test func theFirstSyncSendsEarlierListening() async throws {
        let (library, _, ids) = try await library()
        let changed = Date(timeIntervalSince1970: 1_790_000_000)
        try await library.mark([ids[0]], .played, at: changed)
        try await library.savePosition(ids[1], seconds: 300)
        try await library.acknowledgeActions(try await library.pendingActions(limit: 10).compactMap(\.id))
        try await library.mark([ids[2]], .unplayed)
        #expect(try await library.recordPlayStatesForFirstSync() == 2)
        let actions = try await library.pendingActions(limit: 10)
        #expect(actions.map(\.kind) == [.new, .play, .play])
        let played = try #require(actions.first { $0.episodeURL.hasSuffix("/1.mp3") })
        #expect(played.at == changed && played.position == 1800 && played.total == 1800)
        let started = try #require(actions.first { $0.episodeURL.hasSuffix("/2.mp3") })
        #expect(started.position == 300 && started.total == 1800 && started.started == 0)
        let published = try await library.episode(ids[1])?.published
        #expect(
            started.at
                == (try await library.episode(ids[1])?.stateChanged ?? published ?? Date(timeIntervalSince1970: 0))
        )
        // What waits already is not doubled.
        #expect(try await library.recordPlayStatesForFirstSync() == 0)
    }
}
