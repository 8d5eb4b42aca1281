import FeedKit
import Foundation
import Testing

@testable import Library

/// Smart playlists: the filter language, and its evaluation over a library.
@Suite("Smart playlists")
struct PlaylistTests {
    func parse(_ words: String) -> Result<PlaylistFilter, PlaylistFilterError> {
        PlaylistFilter.parse(words.split(separator: " ").map(String.init))
    }

    @Test func eachWordParsesAndComesBackAsWritten() throws {
        let filter = try parse("UNPLAYED podcast:3 podcast:1 shorter:20m since:7d words:frost sort:oldest limit:5")
            .get()
        #expect(filter.states == [.unplayed])
        #expect(filter.podcasts == [3, 1])
        #expect(filter.shorter == 1200)
        #expect(filter.since == .days(7))
        #expect(filter.words == ["frost"])
        #expect(filter.sort == .oldest)
        #expect(filter.limit == 5)
        #expect(
            filter.description == "unplayed podcast:3 podcast:1 shorter:20m since:7d words:frost sort:oldest limit:5"
        )
        #expect(try parse(filter.description).get() == filter)
        let other = try parse("in-progress downloaded new played longer:1h30m since:2026-11-01").get()
        #expect(other.description == "in-progress downloaded new played longer:1h30m since:2026-11-01")
        // The default order is left out of the words.
        #expect(try parse("new sort:newest").get().description == "new")
    }

    @Test(arguments: [
        ("", "a playlist needs filter words: unplayed, played"),
        ("unheard", "'unheard' is not a filter word; they are unplayed, played, in-progress"),
        ("podcast:x", "'podcast:x': podcast takes a subscription number ('podcasts' lists them)"),
        ("shorter:soon", "'shorter:soon': shorter takes a length such as 20m, 1h30m or 90s"),
        ("since:2026-02-30", "'since:2026-02-30': since takes a number of days (7d) or a day (2026-11-01)"),
        ("sort:random", "'sort:random': sort takes newest, oldest, shortest or longest"),
        ("limit:0", "'limit:0': limit takes a number from 1 to 10000"),
        ("longer:30m shorter:20m", "nothing could match: longer:1800s is not shorter than shorter:1200s"),
        ("colour:red", "'colour:red' is not a filter word"),
    ])
    func badWordsAreRefusedNamingWhatWouldDo(words: String, message: String) {
        guard case .failure(let error) = parse(words) else {
            Issue.record("'\(words)' was taken")
            return
        }
        #expect(error.description.hasPrefix(message), "\(error)")
    }

    @Test func namesAreWordsAShellAndAURLKeep() {
        #expect(StoredPlaylist.validName("short-ones_2"))
        for bad in ["", "add", "RM", "a b", "a/b", "é", String(repeating: "x", count: 41)] {
            #expect(!StoredPlaylist.validName(bad), "\(bad)")
        }
    }

    /// Two subscriptions: A with a 10-minute, a 30-minute and an undated
    /// 5-minute episode, B with a 15-minute one.
    @Test func aFilterHoldsWhatItsWordsSayInItsOrder() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-playlist-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        let now = Date(timeIntervalSince1970: 1_790_000_000 + 10 * 86_400)
        func item(_ guid: String, minutes: Int, day: Int?, notes: String = "") -> FeedItem {
            FeedItem(
                guid: guid,
                title: guid,
                description: notes,
                published: day.map { Date(timeIntervalSince1970: 1_790_000_000 + Double($0) * 86_400) },
                duration: .seconds(minutes * 60),
                enclosure: Enclosure(url: URL(string: "https://media.example/\(guid).mp3")!, type: "audio/mpeg")
            )
        }
        func subscribe(_ title: String, _ items: [FeedItem]) async throws -> Int64 {
            let id = try #require(
                try await library.subscribe(feedURL: URL(string: "https://feeds.example/\(title).xml")!, title: title)
                    .podcast.id
            )
            var feed = Feed()
            feed.title = title
            feed.items = items
            _ = try await library.store(feed, for: id, validators: (nil, nil))
            return id
        }
        let a = try await subscribe(
            "A",
            [
                item("a10", minutes: 10, day: 9, notes: "Frost on the leeks"), item("a30", minutes: 30, day: 2),
                item("a5", minutes: 5, day: nil),
            ]
        )
        let b = try await subscribe("B", [item("b15", minutes: 15, day: 5)])
        func titles(_ words: String) async throws -> [String] {
            let filter = try parse(words).get()
            let titles = try await library.episodes(matching: filter, at: now).map(\.stored.title)
            // `playlists` counts in SQL what the list holds.
            #expect(try await library.count(matching: filter, at: now) == titles.count, "\(words)")
            return titles
        }
        func id(_ guid: String) async throws -> Int64 {
            let all = try await library.episodes(of: a) + library.episodes(of: b)
            return try #require(all.first { $0.guid == guid }?.id)
        }
        #expect(try await titles("unplayed") == ["a10", "b15", "a30", "a5"])
        #expect(try await titles("shorter:20m") == ["a10", "b15", "a5"])
        #expect(try await titles("longer:10m sort:longest") == ["a30", "b15"])
        #expect(try await titles("podcast:\(b)") == ["b15"])
        #expect(try await titles("podcast:\(a) podcast:\(b) sort:shortest limit:2") == ["a5", "a10"])
        #expect(try await titles("since:3d") == ["a10"])
        #expect(try await titles("since:2026-01-01 sort:oldest") == ["a30", "b15", "a10"])
        #expect(try await titles("words:leeks") == ["a10"])
        #expect(try await titles("words:nowhere").isEmpty)
        // Played, in progress (still unplayed), downloaded.
        try await library.mark([try await id("a30")], .played)
        try await library.savePosition(try await id("b15"), seconds: 60)
        try await library.markDownloaded(try await id("a5"))
        #expect(try await titles("played") == ["a30"])
        #expect(try await titles("unplayed") == ["a10", "b15", "a5"])
        #expect(try await titles("in-progress") == ["b15"])
        #expect(try await titles("downloaded unplayed") == ["a5"])
        // Each listed with its P:E.
        let listed = try await library.episodes(matching: try parse("podcast:\(a)").get(), at: now)
        #expect(listed.map(\.ref) == ["\(a):1", "\(a):2", "\(a):3"])
    }

    @Test func savedPlaylistsAreReplacedByNameAndRemoved() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-playlist-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        let short = try parse("unplayed shorter:20m").get()
        #expect(try await library.savePlaylist(StoredPlaylist(name: "Short", filter: short)) == false)
        #expect(try await library.savePlaylist(StoredPlaylist(name: "short", filter: try parse("new").get())) == true)
        #expect(try await library.playlists().map(\.filter) == ["new"])
        #expect(try await library.playlist(named: "SHORT")?.parsedFilter == (try parse("new").get()))
        #expect(try await library.removePlaylist(named: "short"))
        #expect(try await library.removePlaylist(named: "short") == false)
        #expect(try await library.playlists().isEmpty)
    }
}
