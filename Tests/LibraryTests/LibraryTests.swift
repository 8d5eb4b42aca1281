import FeedKit
import FixtureServer
import Foundation
import GRDB
import HTTPSupport
import Synchronization
import Testing

@testable import Library

private func temporaryLibraryPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-library-\(UUID().uuidString)/library.sqlite")
        .path
}

private func item(_ guid: String, _ title: String, day: Int) -> FeedItem {
    FeedItem(
        guid: guid,
        title: title,
        published: Date(timeIntervalSince1970: 1_790_000_000 + Double(day) * 86_400),
        enclosure: Enclosure(url: URL(string: "https://media.example/\(guid).mp3")!, type: "audio/mpeg")
    )
}

private func feed(_ items: [FeedItem], title: String = "Feed") -> Feed {
    var feed = Feed()
    feed.title = title
    feed.items = items
    return feed
}

@Suite("Library")
struct LibraryTests {
    /// It holds feed passwords and the Podcast Index secret: under the usual
    /// umask 022 the file, its WAL and its new folder are the owner's alone, and an
    /// older library left 0644 is narrowed when opened.
    @Test func theLibraryIsItsOwnersAlone() async throws {
        let path = temporaryLibraryPath()
        let library = try Library(path: path)
        try await library.set(.podcastIndexSecret, to: "s3cret")
        func mode(_ path: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
        }
        #expect(mode(path) == 0o600)
        #expect(mode(path + "-wal") == 0o600)
        #expect(mode((path as NSString).deletingLastPathComponent) == 0o700)
        chmod(path, 0o644)
        _ = try Library(path: path)
        #expect(mode(path) == 0o600)
    }

    /// The plain read a start makes before it opens the library: "none" only
    /// when it can tell, else "maybe", and it writes nothing.
    @Test func unreportedAwayEventsAreToldWithoutOpeningTheLibrary() async throws {
        let path = temporaryLibraryPath()
        #expect(Library.mayHoldUnreportedAwayEvents(at: path))
        #expect(!FileManager.default.fileExists(atPath: path))
        let library = try Library(path: path)
        #expect(!Library.mayHoldUnreportedAwayEvents(at: path))
        try await library.recordAway(AwayEvent(label: "1 One", path: "/d/1.mp3", failed: false))
        #expect(Library.mayHoldUnreportedAwayEvents(at: path))
        #expect(try await library.takeAwayEvents().count == 1)
        #expect(!Library.mayHoldUnreportedAwayEvents(at: path))
        let junk = temporaryLibraryPath()
        // Closed, with no WAL file: the file is read as it is, and still nothing
        // is made beside it. In a folder whose name a URI would misread.
        let odd = FileManager.default.temporaryDirectory.appendingPathComponent(
            "feedsh-away-\(UUID().uuidString) ?#%41/library.sqlite"
        ).path
        for (events, told) in [(0, false), (1, true)] {
            try? FileManager.default.removeItem(atPath: odd)
            let closing = try Library(path: odd)
            for index in 0..<events {
                try await closing.recordAway(AwayEvent(label: "\(index) One", path: "/d/1.mp3", failed: false))
            }
            closing.close()
            #expect(!FileManager.default.fileExists(atPath: odd + "-wal"))
            // A file made and removed again would change the folder's time.
            let folder = (odd as NSString).deletingLastPathComponent
            let before = try FileManager.default.attributesOfItem(atPath: folder)[.modificationDate] as? Date
            #expect(Library.mayHoldUnreportedAwayEvents(at: odd) == told)
            let after = try FileManager.default.attributesOfItem(atPath: folder)[.modificationDate] as? Date
            #expect(before != nil && before == after)
        }
        try FileManager.default.createDirectory(
            atPath: (junk as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try Data("not a database, but long enough to be read as one".utf8).write(to: URL(fileURLWithPath: junk))
        #expect(Library.mayHoldUnreportedAwayEvents(at: junk))
    }

    /// The URI of a library read as it is on disk: the three characters SQLite
    /// reads in a URI's path escaped, an absolute path after an empty authority.
    @Test func immutableURIsEscapeWhatSQLiteReads() {
        #expect(Library.immutableURI("/a b/c?d#e%41.sqlite") == "file:///a b/c%3Fd%23e%2541.sqlite?immutable=1")
        #expect(Library.immutableURI("//host/x") == "file:////host/x?immutable=1")
        #expect(Library.immutableURI("library.sqlite") == "file:library.sqlite?immutable=1")
        #expect(Library.immutableURI("/é/☕") == "file:///é/☕?immutable=1")
    }

    /// Items are compared with the library a chunk at a time (memory follows the
    /// chunk, not the feed): across chunks a GUID the feed repeats is still one
    /// episode, refreshed by the later item, and an update matches every stored one.
    @Test func aFeedLongerThanAChunkStoresEachGUIDOnce() async throws {
        let library = try Library(path: temporaryLibraryPath())
        let count = Library.upsertChunk * 2 + 7
        var items = (0..<count).map { item("g\($0)", "Episode \($0)", day: $0) }
        // Item 3 again, in the last chunk, with a new title.
        items.append(item("g3", "Episode 3, corrected", day: 3))
        let (podcast, created, arrived) = try await library.subscribe(
            feedURL: URL(string: "https://feeds.example/long.xml")!,
            title: "Long",
            firstRead: feed(items),
            validators: (nil, nil)
        )
        #expect(created && arrived == count)
        let stored = try await library.episodes(of: podcast.id ?? -1)
        #expect(stored.count == count)
        #expect(stored.first { $0.guid == "g3" }?.title == "Episode 3, corrected")
        // Read again with one new item: only it arrives.
        let again = try library.storeItems(
            items + [item("g-new", "New", day: count + 1)],
            podcastID: podcast.id ?? -1,
            markNew: true
        )
        #expect(again == 1)
        #expect(try await library.episodes(of: podcast.id ?? -1).count == count + 1)
    }

    @Test func migratesInWALModeWithForeignKeysAndIndexes() async throws {
        let path = temporaryLibraryPath()
        _ = try Library(path: path)
        // Opening again runs no migration twice.
        let library = try Library(path: path)
        let (mode, foreignKeys, indexes, migrations) = try await library.database.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"),
                try String.fetchAll(
                    db,
                    sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'episode_%'"
                ),
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            )
        }
        #expect(mode == "wal")
        #expect(foreignKeys == true)
        #expect(Set(indexes) == ["episode_by_date", "episode_new", "episode_on_podcastId"])
        #expect(migrations == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13"])
    }

    @Test func episodesAfterTheFirstUpdateAreNewAndStateSurvivesRefreshes() async throws {
        let library = try Library(path: temporaryLibraryPath())
        let (podcast, created) = try await library.subscribe(
            feedURL: URL(string: "https://feeds.example/a.xml")!,
            title: "A"
        )
        #expect(created)
        let id = try #require(podcast.id)
        let first = try await library.store(
            feed([item("g1", "One", day: 1), item("g2", "Two", day: 2)], title: "Podcast A"),
            for: id,
            validators: ("\"v1\"", nil)
        )
        #expect(first == 2)
        #expect(try await library.newEpisodes().isEmpty)
        let episodes = try await library.episodes(of: id)
        #expect(episodes.map(\.title) == ["Two", "One"])
        try await library.mark([episodes[1].id!], .played)
        // Second update: one new, one changed title; played stays.
        let second = try await library.store(
            feed(
                [item("g3", "Three", day: 3), item("g2", "Two, retitled", day: 2), item("g1", "One", day: 1)],
                title: "Podcast A"
            ),
            for: id,
            validators: ("\"v2\"", "Sun, 01 Nov 2026 00:00:00 GMT")
        )
        #expect(second == 1)
        let fresh = try await library.newEpisodes()
        #expect(fresh.map(\.episode.title) == ["Three"])
        let all = try await library.episodes(of: id)
        #expect(all.map(\.title) == ["Three", "Two, retitled", "One"])
        #expect(all.last?.played == true)
        let stored = try #require(try await library.podcast(id))
        #expect(stored.title == "Podcast A" && stored.etag == "\"v2\"" && stored.updateCount == 2)
        try await library.mark([all[0].id!], .old)
        #expect(try await library.newEpisodes().isEmpty)
    }

    /// `new`'s table reads four columns (``Library/newEpisodeLines()``): the same
    /// episodes as the whole ones, in the same order (n1, n2... name the same
    /// episode either way), ties of date broken alike, undated ones last.
    @Test func newEpisodeLinesAreTheNewEpisodesInTheirOrder() async throws {
        let library = try Library(path: temporaryLibraryPath())
        func dated(_ guid: String, day: Int?, minutes: Int?) -> FeedItem {
            FeedItem(
                guid: guid,
                title: "Title \(guid)",
                published: day.map { Date(timeIntervalSince1970: 1_790_000_000.125 + Double($0) * 86_400) },
                duration: minutes.map { .seconds($0 * 60) },
                enclosure: Enclosure(url: URL(string: "https://media.example/\(guid).mp3")!, type: "audio/mpeg")
            )
        }
        #expect(try await library.newEpisodeLines().isEmpty)
        var ids: [Int64] = []
        for name in ["A", "B"] {
            let (podcast, _) = try await library.subscribe(
                feedURL: URL(string: "https://feeds.example/\(name).xml")!,
                title: name
            )
            let id = try #require(podcast.id)
            ids.append(id)
            // The first read's episodes are not new; the second's are.
            try await library.store(feed([dated("\(name)0", day: 0, minutes: 1)]), for: id, validators: (nil, nil))
        }
        try await library.store(
            feed(
                [
                    dated("A1", day: 2, minutes: 30), dated("A2", day: 1, minutes: nil),
                    dated("A3", day: nil, minutes: 5),
                ],
                title: "Podcast A"
            ),
            for: ids[0],
            validators: (nil, nil)
        )
        try await library.store(
            feed([dated("B1", day: 2, minutes: 45), dated("B2", day: nil, minutes: nil)], title: "Podcast B"),
            for: ids[1],
            validators: (nil, nil)
        )
        let whole = try await library.newEpisodes()
        let lines = try await library.newEpisodeLines()
        #expect(whole.count == 5)
        #expect(lines == whole.map(NewEpisodeLine.init))
        #expect(lines.map(\.title) == ["Title B1", "Title A1", "Title A2", "Title B2", "Title A3"])
        #expect(lines.first?.podcastTitle == "Podcast B" && lines.first?.seconds == 45 * 60)
        #expect(lines.first?.published == Date(timeIntervalSince1970: 1_790_000_000.125 + 2 * 86_400))
        try await library.mark(whole.compactMap(\.episode.id), .old)
        #expect(try await library.newEpisodeLines().isEmpty)
    }

    @Test func subscribingTwiceKeepsOneAndUnsubscribingRemovesEpisodes() async throws {
        let library = try Library(path: temporaryLibraryPath())
        let url = URL(string: "https://feeds.example/b.xml")!
        let (podcast, _) = try await library.subscribe(feedURL: url, title: "B")
        let again = try await library.subscribe(feedURL: url, title: "B again", itunesID: 42)
        #expect(!again.created && again.podcast.id == podcast.id && again.podcast.itunesID == 42)
        try await library.store(feed([item("x", "X", day: 1)]), for: podcast.id!, validators: (nil, nil))
        try await library.unsubscribe(podcast.id!)
        #expect(try await library.podcasts().isEmpty)
        let orphans = try await library.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode")
        }
        #expect(orphans == 0)
    }

    @Test func twoLibrariesOnOneFileBothWrite() async throws {
        let path = temporaryLibraryPath()
        let one = try Library(path: path)
        let two = try Library(path: path)
        async let a: Void = {
            for index in 0..<40 {
                _ = try await one.subscribe(
                    feedURL: URL(string: "https://one.example/\(index)")!,
                    title: "one \(index)"
                )
            }
        }()
        async let b: Void = {
            for index in 0..<40 {
                _ = try await two.subscribe(
                    feedURL: URL(string: "https://two.example/\(index)")!,
                    title: "two \(index)"
                )
            }
        }()
        _ = try await (a, b)
        #expect(try await one.podcasts().count == 80)
    }

    @Test func aFailureIsRecordedAndASuccessClearsIt() async throws {
        let library = try Library(path: temporaryLibraryPath())
        let (podcast, _) = try await library.subscribe(feedURL: URL(string: "https://c.example/")!, title: "C")
        let url = URL(string: "https://c.example/")!
        try await library.storeFailure(podcast.id!, .feed(.httpStatus(500, url: url)))
        // Kept as its kind and data: read back, it is the same failure, with its
        // code and URL, and its words are made when it is shown.
        let stored = try #require(try await library.podcasts().first?.podcast)
        #expect(stored.lastFailure == .feed(.httpStatus(500, url: url)))
        #expect(stored.lastFailure?.code == "http-status" && stored.lastError == nil)
        let raw = try await library.database.read { db in
            try String.fetchOne(db, sql: "SELECT lastFailure FROM podcast")
        }
        #expect(raw?.contains("500") == true && raw?.contains("https:") == true)
        #expect(raw?.contains("HTTP 500") == false)
        try await library.storeUnchanged(podcast.id!)
        #expect(try await library.podcasts().first?.podcast.lastFailure == nil)
    }
}

@Suite("Feed updates against the fixture server")
struct FeedUpdaterTests {
    @Test func concurrentUpdatesWithConditionalRequestsMovesAndFailures() async throws {
        let server = try await FixtureServer.start(.init())
        let client = FeedClient(retry: RetryPolicy(attempts: 3, baseDelay: .milliseconds(10)))
        let library = try Library(path: temporaryLibraryPath())
        let base = server.baseURL.absoluteString
        var podcasts: [StoredPodcast] = []
        for path in [
            "/feeds/1386867488.xml", "/fault/changes=1/feeds/1000000001.xml", "/feeds/moved.xml", "/feeds/gone.xml",
            "/fault/status=500/feeds/x.xml", "/feeds/paged.xml", "/feeds/file/quirks.rss",
            "/fault/gzip/feeds/1000000002.xml",
        ] {
            podcasts.append(try await library.subscribe(feedURL: URL(string: base + path)!, title: path).podcast)
        }
        let updater = FeedUpdater(library: library, client: client)
        let first = await updater.update(podcasts)
        // A first read stores a feed's history without calling it new.
        #expect(
            first.map(\.status) == [
                .updated(newEpisodes: 0), .updated(newEpisodes: 0), .updated(newEpisodes: 0), .gone,
                .failed(.feed(.httpStatus(500, url: URL(string: "\(base)/fault/status=500/feeds/x.xml")!))),
                .updated(newEpisodes: 0), .updated(newEpisodes: 0), .updated(newEpisodes: 0),
            ]
        )
        // Gzip-encoded, and with an escape sequence and a bell in its bytes: all read.
        #expect(first.map(\.added) == [5, 60, 5, 0, 0, 6, 4, 5])
        let after = try await library.podcasts()
        // The 301 updated the stored URL; the quirks feed's new-feed-url too.
        #expect(
            after.contains {
                $0.podcast.feedURL == base + "/feeds/1386867488.xml" && $0.podcast.title == "Loopback Radio"
            }
        )
        #expect(after.contains { $0.podcast.feedURL == "https://quirks.example/new-feed.rss" })
        let requestsBefore = server.requests.count
        let second = await updater.update(
            try await library.podcasts().map(\.podcast).filter { $0.feedURL.hasPrefix(base) }
        )
        // Unchanged feeds answer 304; the changed one brings one bonus episode.
        #expect(second.filter { $0.status == .unchanged }.count >= 2)
        #expect(second.contains { $0.status == .updated(newEpisodes: 1) })
        #expect(server.requests.count > requestsBefore)
        #expect(try await library.newEpisodes().map(\.episode.title) == ["Bonus episode 1"])
        try await client.shutdown()
        await server.stop()
    }

    /// Servers that take the request and never answer hold no one: each feed
    /// gives its slot up after `slowAfter`, so every good feed is read before the
    /// first hanging one gives up (a 20 s read timeout: room for a machine
    /// running the whole suite); a hanging one is asked once (not again at
    /// once), and its failure says how long it was waited for.
    @Test func hangingServersHoldNoOne() async throws {
        let server = try await FixtureServer.start(.init())
        let silent = try SilentPort()
        let client = FeedClient(
            settings: HTTPSettings(readTimeout: .seconds(20)),
            retry: RetryPolicy(attempts: 3, baseDelay: .milliseconds(10))
        )
        let library = try Library(path: temporaryLibraryPath())
        var podcasts: [StoredPodcast] = []
        let urls =
            (1...4).map { silent.url("/feed\($0).xml") }
            + (1...6).map { server.url("/feeds/1000000001.xml?good=\($0)") }
        for url in urls {
            podcasts.append(try await library.subscribe(feedURL: url, title: url.absoluteString).podcast)
        }
        var updater = FeedUpdater(library: library, client: client, concurrency: 2, perHost: 100)
        updater.slowAfter = .milliseconds(300)
        let failures = Mutex<[Int]>([])
        let results = await updater.update(podcasts) { _, _, failed in failures.withLock { $0.append(failed) } }
        #expect(failures.withLock { $0 } == [0, 0, 0, 0, 0, 0, 1, 2, 3, 4])
        #expect(results.suffix(6).allSatisfy { $0.status == .updated(newEpisodes: 0) })
        for result in results.prefix(4) {
            guard case .failed(.feed(let error)) = result.status else {
                Issue.record("\(result.status)")
                continue
            }
            #expect(error.code == .timedOut)
            // The read timeout's 20 s (and the time to see it), not the 60 s limit.
            let waited = error.description.split(separator: " ").dropLast().last.flatMap { Double($0) }
            #expect((20..<40).contains(waited ?? -1), "\(error)")
        }
        // Asked once each (three tries would be 12 connections).
        #expect(silent.connections == 4)
        try await client.shutdown()
        await server.stop()
        withExtendedLifetime(silent) {}
    }

    /// The whole update ends by its deadline, whatever the slowest server does:
    /// the feed in flight and the one not yet started are `unfinished`, with
    /// nothing recorded against them. (Servers that never answer: a good feed's
    /// time is not bounded on a machine running the whole suite.)
    @Test func anUpdateEndsByItsDeadline() async throws {
        let silent = try SilentPort()
        // A read timeout far past the deadline: what ends the update is the deadline.
        let client = FeedClient(settings: HTTPSettings(readTimeout: .seconds(300)), retry: RetryPolicy(attempts: 1))
        let library = try Library(path: temporaryLibraryPath())
        var podcasts: [StoredPodcast] = []
        for url in [silent.url("/one.xml"), silent.url("/two.xml")] {
            podcasts.append(try await library.subscribe(feedURL: url, title: url.absoluteString).podcast)
        }
        // One at a time, and the first keeps its slot: the second never starts.
        var updater = FeedUpdater(library: library, client: client, concurrency: 1)
        updater.slowAfter = .seconds(600)
        let started = ContinuousClock.now
        let results = await updater.update(podcasts, deadline: .seconds(1))
        // Far under the 300 s read timeout that would end the first otherwise.
        #expect(ContinuousClock.now - started < .seconds(120))
        #expect(silent.connections <= 1)
        #expect(results.map(\.status) == [.unfinished, .unfinished])
        for podcast in podcasts {
            #expect(try await library.podcast(podcast.id!)?.lastFailure == nil)
        }
        #expect(FeedUpdater.deadline(forFeeds: 500) == .seconds(245))
        try await client.shutdown()
        withExtendedLifetime(silent) {}
    }

    /// Subscribing reads the feed at once; one that cannot be read leaves no
    /// subscription, and the sync outbox as it was for that feed.
    @Test func aFeedThatCannotBeReadLeavesNoTrace() async throws {
        let server = try await FixtureServer.start(.init())
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        let library = try Library(path: temporaryLibraryPath())
        let updater = FeedUpdater(library: library, client: client)
        let good = try await updater.subscribe(feedURL: server.url("/feeds/1386867488.xml"), title: "x")
        #expect(good.created && good.podcast?.title == "Loopback Radio" && good.result.added == 5)
        // Once subscribed and removed: that removal still waits afterwards.
        let badURL = server.url("/fault/status=500/feeds/x.xml")
        try await library.unsubscribe(try await library.subscribe(feedURL: badURL, title: "x").podcast.id!)
        let bad = try await updater.subscribe(feedURL: badURL, title: "x")
        #expect(bad.created && bad.podcast == nil)
        guard case .failed = bad.result.status else {
            Issue.record("a 500 read as \(bad.result.status)")
            return
        }
        // 410 Gone is refused as a 404 is, naming the status.
        let gone = try await updater.subscribe(feedURL: server.url("/feeds/gone.xml"), title: "x")
        #expect(gone.podcast == nil)
        guard case .failed(let reason) = gone.result.status else {
            Issue.record("a 410 read as \(gone.result.status)")
            return
        }
        #expect(reason.description.contains("HTTP 410"), "\(reason)")
        #expect(try await library.podcasts().map(\.podcast.title) == ["Loopback Radio"])
        let pending = try await library.pendingSubscriptionChanges().sorted { $0.feedURL < $1.feedURL }
        #expect(pending.map(\.feedURL) == [good.podcast?.feedURL ?? "", badURL.absoluteString].sorted())
        #expect(pending.first { $0.feedURL == badURL.absoluteString }?.subscribed == false)
        // A failed subscribe uses no number up: the next one gets 3, while the
        // number shown (2, unsubscribed since) is never given again.
        let next = try await updater.subscribe(feedURL: server.url("/feeds/paged.xml"), title: "x")
        #expect(next.podcast?.id == 3)
        try await client.shutdown()
        await server.stop()
    }

    /// A new subscription's first read is spooled to an unnamed file and parsed
    /// inside its transaction: what it stores is what the feed parsed in memory
    /// stores (mended bytes, gzip, encodings, a move, every page of a paged feed,
    /// none of it new), a body that is no feed or breaks off leaves nothing, and
    /// no file is left beside the library.
    @Test func aSpooledFirstReadStoresWhatTheFeedHolds() async throws {
        let server = try await FixtureServer.start(.init())
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        let spooled = try Library(path: temporaryLibraryPath())
        let inMemory = try Library(path: temporaryLibraryPath())
        let updater = FeedUpdater(library: spooled, client: client)
        func stored(_ library: Library, _ id: Int64?) async throws -> [String] {
            try await library.episodes(of: id ?? -1).map {
                [
                    $0.guid, $0.title, $0.summary ?? "", "\($0.published?.timeIntervalSince1970 ?? 0)",
                    "\($0.seconds ?? 0)", $0.audioURL, $0.audioType ?? "", "\($0.isNew)",
                ].joined(separator: "|")
            }
        }
        for path in [
            "/feeds/1386867488.xml", "/feeds/file/quirks.rss", "/fault/gzip/feeds/1000000002.xml",
            "/feeds/file/bom.rss", "/feeds/file/cp1252.rss", "/feeds/file/latin1.rss", "/feeds/file/atom.xml",
            "/feeds/moved.xml", "/feeds/paged.xml", "/feeds/generate?n=1200",
        ] {
            let url = server.url(path)
            let subscribed = try await updater.subscribe(feedURL: url, title: path)
            let podcast = try #require(subscribed.podcast, "\(path): \(subscribed.result.status)")
            #expect(subscribed.result.status == .updated(newEpisodes: 0), "\(path)")
            guard case .fetched(let feed, let etag, let lastModified, let movedTo) = try await client.fetch(url) else {
                Issue.record("\(path) was not fetched")
                continue
            }
            let reference = try await inMemory.subscribe(
                feedURL: url,
                title: path,
                firstRead: feed,
                validators: (etag, lastModified),
                movedTo: movedTo
            )
            let episodes = try await stored(spooled, podcast.id)
            #expect(episodes == (try await stored(inMemory, reference.podcast.id)), "\(path)")
            #expect(subscribed.result.added == episodes.count, "\(path)")
            #expect(podcast.feedURL == reference.podcast.feedURL && podcast.title == reference.podcast.title)
            #expect(!episodes.isEmpty, "\(path)")
        }
        let paged = try await spooled.podcasts().first { $0.podcast.title == "Paged Feed" }
        #expect(try await stored(spooled, paged?.podcast.id).count == 6)
        // No feed, or a body cut off: nothing stored, the feed's failure said.
        for path in ["/lookup?id=1386867488", "/fault/drop=1500/feeds/1000000004.xml"] {
            let failed = try await updater.subscribe(feedURL: server.url(path), title: path)
            #expect(failed.podcast == nil, "\(path)")
            guard case .failed(.feed) = failed.result.status else {
                Issue.record("\(path): \(failed.result.status)")
                continue
            }
        }
        #expect(try await spooled.podcasts().count == 10)
        let folder = URL(fileURLWithPath: spooled.path).deletingLastPathComponent().path
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            !$0.hasPrefix("library.sqlite")
        }
        #expect(left.isEmpty, "\(left)")
        try await client.shutdown()
        await server.stop()
    }

    /// A first read cancelled (Ctrl-C, `mcp`'s input closed) while the feed is
    /// on its way stores nothing: no empty subscription, nothing for sync.
    @Test func anInterruptedFirstReadLeavesNoSubscription() async throws {
        let server = try await FixtureServer.start(.init())
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        let library = try Library(path: temporaryLibraryPath())
        let updater = FeedUpdater(library: library, client: client)
        let slow = server.url("/fault/delay=5000/feeds/1386867488.xml")
        let subscribing = Task { try await updater.subscribe(feedURL: slow, title: "x") }
        let deadline = ContinuousClock.now + .seconds(10)
        while server.requests.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        subscribing.cancel()
        let (podcast, created, result) = try await subscribing.value
        #expect(podcast == nil && created)
        #expect(result.status == .interrupted)
        #expect(try await library.podcasts().isEmpty)
        #expect(try await library.pendingSubscriptionChanges().isEmpty)
        try await client.shutdown()
        await server.stop()
    }
}

@Suite("A library and updates a broken server cannot break")
struct BrokenUpdateTests {
    /// Six feeds, the fourth cut off mid-body: the others are stored, the fourth
    /// gets its error recorded, and the next update runs again.
    @Test func oneTruncatedFeedDoesNotStopTheUpdate() async throws {
        let server = try await FixtureServer.start(.init())
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        let library = try Library(path: temporaryLibraryPath())
        let base = server.baseURL.absoluteString
        var podcasts: [StoredPodcast] = []
        for path in [
            "/feeds/1386867488.xml", "/feeds/1000000001.xml", "/feeds/1000000002.xml",
            "/fault/drop=1500/feeds/1000000004.xml", "/feeds/paged.xml", "/feeds/listening.xml",
        ] {
            podcasts.append(try await library.subscribe(feedURL: URL(string: base + path)!, title: path).podcast)
        }
        let updater = FeedUpdater(library: library, client: client)
        for _ in 0..<2 {
            let results = await updater.update(podcasts)
            #expect(results.count == 6)
            #expect(
                results.enumerated().allSatisfy { index, result in
                    if case .failed(let failure) = result.status {
                        return index == 3 && failure.code == "truncated-body"
                            && failure.description.contains("ended after")
                            && failure.description.contains("1000000004.xml")
                    }
                    return index != 3
                }
            )
        }
        let stored = try await library.podcasts()
        #expect(
            stored.filter { $0.podcast.lastFailure != nil }.map(\.podcast.feedURL) == [
                base + podcasts[3].feedURL.dropFirst(base.count)
            ]
        )
        try await client.shutdown()
        await server.stop()
    }

    /// A library a newer feedsh wrote is refused and left byte for byte as it was,
    /// by a pool and by one connection.
    @Test(arguments: ["user_version", "migration"], [Library.Connections.pool, .one])
    func aNewerLibraryIsRefusedUntouched(how: String, connections: Library.Connections) async throws {
        let path = temporaryLibraryPath()
        do {
            _ = try Library(path: path)
        }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            if how == "user_version" {
                try db.execute(sql: "PRAGMA user_version = 99")
            } else {
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')")
            }
        }
        try queue.close()
        let files = ["", "-wal", "-shm"].map { path + $0 }
        let before = files.map { FileManager.default.contents(atPath: $0) }
        #expect {
            _ = try Library(path: path, connections: connections)
        } throws: { error in
            (error as? LibraryError)?.code == .newer
                && String(describing: error).contains("this library was written by a newer feedsh (schema v")
        }
        #expect(files.map { FileManager.default.contents(atPath: $0) } == before)
    }

    /// A file that is no library is said to be one, with its own code, and left alone.
    @Test func aFileThatIsNoLibraryIsSaidToBeOne() throws {
        let path = temporaryLibraryPath()
        let text = Data(String(repeating: "not a database; ", count: 64).utf8)
        let file = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file)
        #expect {
            _ = try Library(path: path)
        } throws: { error in
            guard let error = error as? LibraryError else { return false }
            return error.code == .notALibrary && error.path == path
                && error.description.contains("is not a feedsh library, or is damaged")
        }
        #expect(FileManager.default.contents(atPath: path) == text)
    }

    @Test func aMoveAnsweredWith304IsStored() async throws {
        let library = try Library(path: temporaryLibraryPath())
        let (podcast, _) = try await library.subscribe(feedURL: URL(string: "https://old.example/feed")!, title: "M")
        try await library.storeUnchanged(podcast.id!, movedTo: URL(string: "https://new.example/feed")!)
        #expect(try await library.podcasts().first?.podcast.feedURL == "https://new.example/feed")
    }
}

@Suite("One connection to the library")
struct OneConnectionTests {
    /// What a script's read-only command does to the library: nothing. One
    /// connection opens, checks and reads it without a write (a pool's opening
    /// writes, to make the WAL), and closing it takes away the WAL files its
    /// reads made.
    @Test func openingAndReadingWritesNothing() async throws {
        let path = temporaryLibraryPath()
        do {
            let library = try Library(path: path)
            _ = try await library.subscribe(feedURL: URL(string: "https://example.com/feed")!, title: "F")
        }
        let files = ["", "-wal", "-shm"].map { path + $0 }
        let before = files.map { FileManager.default.contents(atPath: $0) }
        #expect(before[1] == nil && before[2] == nil)
        do {
            let library = try Library(path: path, connections: .one)
            #expect(try await library.podcasts().map(\.podcast.title) == ["F"])
            #expect(try await library.newEpisodes().isEmpty)
        }
        #expect(files.map { FileManager.default.contents(atPath: $0) } == before)
    }

    /// A library made through one connection is the same as a pool's: private,
    /// in WAL mode (kept by the file), migrated; and it reads what it writes.
    @Test func aNewLibraryIsPrivateInWALModeAndMigrated() async throws {
        let path = temporaryLibraryPath()
        do {
            let library = try Library(path: path, connections: .one)
            let (podcast, created) = try await library.subscribe(
                feedURL: URL(string: "https://example.com/f")!,
                title: "T"
            )
            #expect(created)
            _ = try library.storeItems([item("a", "A", day: 1)], podcastID: podcast.id!, markNew: true)
            #expect(try await library.newEpisodes().map(\.episode.title) == ["A"])
        }
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let queue = try DatabaseQueue(path: path)
        let (journal, version, migrated) = try await queue.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations")
            )
        }
        #expect(journal == "wal" && version == Library.schemaVersion)
        #expect(try await queue.read { db in try Library.migrator.hasCompletedMigrations(db) })
        #expect(migrated == Library.migrator.migrations.count)
        try queue.close()
    }
}

@Suite("Subscription numbers")
struct SubscriptionNumberTests {
    /// Given at subscribe, kept until unsubscribe, never given again: not even the
    /// highest number, once its subscription is gone.
    @Test func numbersAreStableAndNeverReused() async throws {
        let library = try Library(path: temporaryLibraryPath())
        var numbers: [String: Int] = [:]
        for name in ["c", "a", "b"] {
            let (podcast, _) = try await library.subscribe(
                feedURL: URL(string: "https://\(name).example/")!,
                title: name
            )
            numbers[name] = podcast.number
        }
        #expect(numbers == ["c": 1, "a": 2, "b": 3])
        try await library.unsubscribe(Int64(numbers["b"]!))
        try await library.unsubscribe(Int64(numbers["c"]!))
        let (d, _) = try await library.subscribe(feedURL: URL(string: "https://d.example/")!, title: "d")
        #expect(d.number == 4)
        #expect(try await library.podcasts().map { "\($0.podcast.number) \($0.podcast.title)" } == ["2 a", "4 d"])
        #expect(try await library.podcastTitles().map(\.number) == [2, 4])
    }
}

@Suite("Library credentials")
struct LibraryCredentialTests {
    /// Kept in their own table: set, replaced, forgotten, and gone with the
    /// subscription; the podcast row never holds them.
    @Test func credentialsLiveApartAndGoWithTheSubscription() async throws {
        let path = temporaryLibraryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let library = try Library(path: path)
        let (podcast, _) = try await library.subscribe(
            feedURL: URL(string: "https://members.example/rss")!,
            title: "Members"
        )
        let id = try #require(podcast.id)
        #expect(try await library.credentials(of: id) == nil)
        try await library.setCredentials(FeedCredentials(user: "alice", password: "p@ss:word"), of: id)
        try await library.setCredentials(FeedCredentials(user: "alice", password: "second"), of: id)
        #expect(try await library.credentials(of: id) == FeedCredentials(user: "alice", password: "second"))
        #expect(try await library.allCredentials() == [id: FeedCredentials(user: "alice", password: "second")])
        #expect(try await library.podcast(id)?.feedURL == "https://members.example/rss")
        try await library.setCredentials(nil, of: id)
        #expect(try await library.allCredentials().isEmpty)
        try await library.setCredentials(FeedCredentials(user: "bob", password: "x"), of: id)
        try await library.unsubscribe(id)
        #expect(try await library.allCredentials().isEmpty)
    }

    /// A private feed's password was given for its origin: a move there (a 301
    /// on the same host) keeps it; a move to another origin (a redirect,
    /// `itunes:new-feed-url`, a sync server's `update_urls`) forgets it, so the
    /// next update never sends it there.
    @Test func credentialsNeverFollowAMoveToAnotherOrigin() async throws {
        let library = try Library(path: temporaryLibraryPath())
        let secret = FeedCredentials(user: "alice", password: "s3cret")
        func subscribed(_ address: String) async throws -> Int64 {
            let id = try #require(try await library.subscribe(feedURL: URL(string: address)!, title: "x").podcast.id)
            try await library.setCredentials(secret, of: id)
            return id
        }
        let stays = try await subscribed("https://members.example/rss")
        try await library.storeUnchanged(stays, movedTo: URL(string: "https://members.example/v2/rss")!)
        #expect(try await library.credentials(of: stays) == secret)
        try await library.storeUnchanged(stays, movedTo: URL(string: "https://attacker.example/rss")!)
        #expect(try await library.podcast(stays)?.feedURL == "https://attacker.example/rss")
        #expect(try await library.credentials(of: stays) == nil)
        // http to https on the same host is another origin too.
        let scheme = try await subscribed("http://plain.example/rss")
        try await library.rewriteFeedURL("http://plain.example/rss", to: "https://plain.example/rss")
        #expect(try await library.credentials(of: scheme) == nil)
        let synced = try await subscribed("https://premium.example/rss")
        try await library.rewriteFeedURL("https://premium.example/rss", to: "https://elsewhere.example/rss")
        #expect(try await library.podcast(synced)?.feedURL == "https://elsewhere.example/rss")
        #expect(try await library.credentials(of: synced) == nil)
        let stored = try await subscribed("https://feeds.example/a")
        var feed = Feed()
        feed.title = "A"
        try await library.store(
            feed,
            for: stored,
            validators: (nil, nil),
            movedTo: URL(string: "https://other.example/a")!
        )
        #expect(try await library.credentials(of: stored) == nil)
    }
}
