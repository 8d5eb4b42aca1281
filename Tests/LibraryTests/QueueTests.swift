import FeedKit
import Foundation
import Testing

@testable import Library

/// The play queue as the library keeps it.
@Suite("Queue")
struct QueueTests {
    @Test func theQueueKeepsItsOrderAndLosesWhatIsPlayedOrGone() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-queue-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        var ids: [Int64] = []
        for name in ["a", "b"] {
            let podcast = try #require(
                try await library.subscribe(feedURL: URL(string: "https://feeds.example/\(name).xml")!, title: name)
                    .podcast.id
            )
            var feed = Feed()
            feed.title = name.uppercased()
            feed.items = (1...3).map { day in
                FeedItem(
                    guid: "\(name)\(day)",
                    title: "\(name) \(day)",
                    published: Date(timeIntervalSince1970: 1_790_000_000 + Double(day) * 86_400),
                    enclosure: Enclosure(url: URL(string: "https://media.example/\(name)\(day).mp3")!, type: nil)
                )
            }
            _ = try await library.store(feed, for: podcast, validators: (nil, nil))
            ids += try await library.episodeIDs(of: podcast)
        }
        // a 3, a 2, a 1, b 3, b 2, b 1 (newest first in each).
        #expect(try await library.enqueue([ids[3], ids[0], ids[3]]) == 2)
        #expect(try await library.enqueue([ids[0], ids[5]]) == 1)
        var queue = try await library.queue()
        #expect(queue.map(\.title) == ["b 3", "a 3", "b 1"])
        #expect(queue.map(\.position) == [1, 2, 3])
        #expect(queue.map { "\($0.podcastNumber):\($0.episodeNumber)" } == ["2:1", "1:1", "2:3"])
        #expect(try await library.moveInQueue(from: 3, to: 1))
        #expect(try await library.moveInQueue(from: 2, to: 99))
        #expect(try await !library.moveInQueue(from: 4, to: 1))
        #expect(try await library.queue().map(\.title) == ["b 1", "a 3", "b 3"])
        // Played leaves it, by `play` or `mark`; so does an unsubscribed podcast's.
        try await library.mark([ids[0]], .played)
        #expect(try await library.queue().map(\.title) == ["b 1", "b 3"])
        try await library.enqueue([ids[1]])
        try await library.unsubscribe(2)
        queue = try await library.queue()
        #expect(queue.map(\.title) == ["a 2"] && queue.first?.position == 1)
        try await library.dequeue([ids[1]])
        #expect(try await library.queue().isEmpty)
        try await library.enqueue([ids[1], ids[2]])
        #expect(try await library.clearQueue() == 2)
    }
}
