import FeedKit
import Foundation
import PlainText
import Testing

@testable import Library

/// `P:E`: parsed once (PlainText's ListedAddress), read in one go.
@Suite("P:E")
struct ListedEpisodeTests {
    @Test func theFormIsParsedStrictly() {
        #expect(ListedAddress("2:1") == ListedAddress(podcast: 2, number: 1))
        #expect(ListedAddress("12:340")?.description == "12:340")
        for bad in ["2", "2:", ":1", "0:1", "2:0", "x:1", "2:x", "+2:1", "2:+1", "2:1-3", " 2:1", "2:1 ", "2:١"] {
            #expect(ListedAddress(bad) == nil, "\(bad)")
        }
        #expect(ListedAddress.subscription(of: "3:2-4") == .number(3, rest: "2-4"))
        #expect(ListedAddress.subscription(of: "x:all") == .malformed("x"))
        #expect(ListedAddress.subscription(of: "all") == nil)
    }

    @Test func anEpisodeIsFoundByItsPlaceAndAWrongPlaceSaysWhatThereIs() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-listed-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        let podcast = try #require(
            try await library.subscribe(feedURL: URL(string: "https://feeds.example/a.xml")!, title: "A").podcast.id
        )
        var feed = Feed()
        feed.title = "A"
        // One undated: listed after the dated ones, as `episodes` lists it.
        feed.items = [1, 2, nil].map { day in
            FeedItem(
                guid: "a\(day ?? 0)",
                title: "a \(day.map(String.init) ?? "undated")",
                published: day.map { Date(timeIntervalSince1970: 1_790_000_000 + Double($0) * 86_400) },
                enclosure: Enclosure(url: URL(string: "https://media.example/a\(day ?? 0).mp3")!, type: nil)
            )
        }
        _ = try await library.store(feed, for: podcast, validators: (nil, nil))
        let ids = try await library.episodeIDs(of: podcast)
        for (index, id) in ids.enumerated() {
            guard case .found(let found) = try await library.episode(listed: index + 1, of: podcast) else {
                Issue.record("\(podcast):\(index + 1) not found")
                continue
            }
            #expect(found.stored.id == id && found.ref == "\(podcast):\(index + 1)" && found.podcast.title == "A")
            // The same place the other routes compute for the episode.
            #expect(try await library.resolve([found.episodeRef]).first?.episodeNumber == index + 1)
        }
        guard case .outOfRange(let count) = try await library.episode(listed: 4, of: podcast) else {
            Issue.record("4 is past the list")
            return
        }
        #expect(count == 3)
        guard case .noSubscription = try await library.episode(listed: 1, of: podcast + 1) else {
            Issue.record("no subscription \(podcast + 1)")
            return
        }
    }
}
