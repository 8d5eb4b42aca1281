import FeedKit
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import FeedServer

/// Feeds rendered once for each change of the library or the download folder,
/// and never served stale.
@Suite struct RenderedFeedsTests {
    /// The library's catalog, counting the feeds it is asked to read.
    final class CountingCatalog: ServeCatalog {
        let inner: LibraryCatalog
        let reads = Atomic<Int>(0)

        init(_ inner: LibraryCatalog) { self.inner = inner }

        func feed(_ choice: FeedChoice) async throws -> ServedFeed? {
            reads.add(1, ordering: .relaxed)
            return try await inner.feed(choice)
        }
        func version(of choice: FeedChoice) -> FeedVersion? { inner.version(of: choice) }
        func subscriptionsOPML() async throws -> String { try await inner.subscriptionsOPML() }
        var mediaRoot: URL { inner.mediaRoot }
    }

    /// (status, ETag, items) of a GET.
    static func get(_ client: some TestClientProtocol, _ uri: String, tag: String? = nil) async throws
        -> (status: HTTPResponse.Status, tag: String?, items: Int)
    {
        let headers: HTTPFields = tag.map { [.ifNoneMatch: $0] } ?? [:]
        return try await client.execute(uri: uri, method: .get, headers: headers) { response in
            (
                response.status, response.headers[.eTag],
                String(buffer: response.body).components(separatedBy: "<item>").count - 1
            )
        }
    }

    @Test func aFeedIsReadOnceForEachChangeAndNeverServedStale() async throws {
        let served = try await ServedLibrary.make()
        let catalog = CountingCatalog(LibraryCatalog(services: served.services))
        let server = FeedServer(catalog: catalog, configuration: .init(), log: { _ in })
        try await Application(router: server.router()).test(.router) { client in
            let first = try await Self.get(client, "/feeds/all.xml")
            #expect(first.status == .ok && first.items == 2)
            for _ in 0..<5 {
                let again = try await Self.get(client, "/feeds/all.xml")
                #expect(again.tag == first.tag && again.items == 2)
                #expect(try await Self.get(client, "/feeds/all.xml", tag: first.tag).status == .notModified)
            }
            #expect(catalog.reads.load(ordering: .relaxed) == 1)

            // A download completes (in any process): the next poll has it.
            try served.download(served.episodes[2], of: served.podcast)
            let downloaded = try await Self.get(client, "/feeds/all.xml", tag: first.tag)
            #expect(downloaded.status == .ok && downloaded.items == 3 && downloaded.tag != first.tag)
            #expect(catalog.reads.load(ordering: .relaxed) == 2)

            // The library changes (an update renamed an episode): so does the feed.
            var feed = Feed()
            feed.title = "Harbour Sounds"
            feed.items = served.episodes.map { stored in
                FeedItem(
                    guid: stored.guid,
                    title: stored.guid == "harbour-1" ? "Tide 1, renamed" : stored.title,
                    published: stored.published,
                    enclosure: Enclosure(url: URL(string: stored.audioURL)!, type: "audio/mpeg")
                )
            }
            _ = try await served.library.store(feed, for: served.podcast.id ?? 0, validators: (nil, nil))
            let renamed = try await client.execute(uri: "/feeds/1.xml", method: .get) { String(buffer: $0.body) }
            #expect(renamed.contains("Tide 1, renamed"))

            // A file deleted: gone from the feed at once.
            let file = try #require(served.services.downloads.file(of: served.episodes[0], in: served.podcast))
            try FileManager.default.removeItem(at: file.final)
            let deleted = try await Self.get(client, "/feeds/all.xml", tag: downloaded.tag)
            #expect(deleted.status == .ok && deleted.items == 2)

            // Many polls at once after a change wait for one read.
            let before = catalog.reads.load(ordering: .relaxed)
            try served.download(served.episodes[0], of: served.podcast)
            let tags = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<20 { group.addTask { try await Self.get(client, "/feeds/all.xml").tag } }
                return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
            }
            #expect(tags.count == 1)
            #expect(catalog.reads.load(ordering: .relaxed) == before + 1)
        }
        await served.close()
    }

    /// A partial download and its sidecar come and go without a feed read again;
    /// a new podcast folder and the file renamed into it count.
    @Test func onlyCompleteFilesAndTheLibraryMoveTheCount() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-watch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let downloads = folder.appendingPathComponent("downloads")
        let watch = ChangeWatch(downloads: downloads, library: folder.appendingPathComponent("library.sqlite"))
        #expect(watch.current() == nil, "no download folder yet")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let start = try #require(watch.current())
        #expect(watch.current() == start)

        let podcast = downloads.appendingPathComponent("feed-1a")
        try FileManager.default.createDirectory(at: podcast, withIntermediateDirectories: true)
        let afterFolder = try #require(watch.current())
        #expect(afterFolder != start)
        let part = podcast.appendingPathComponent("12.mp3.part")
        try Data(count: 100).write(to: part)
        try Data("{}".utf8).write(to: podcast.appendingPathComponent("12.mp3.part.json"))
        try Data(count: 100).write(to: part)
        #expect(watch.current() == afterFolder, "a partial download is not in a feed")
        try FileManager.default.moveItem(at: part, to: podcast.appendingPathComponent("12.mp3"))
        let complete = try #require(watch.current())
        #expect(complete != afterFolder)
        #expect(watch.current() == complete)

        // The library: a commit writes its WAL; another file beside it does not count.
        try Data(count: 10).write(to: folder.appendingPathComponent("notes.txt"))
        #expect(watch.current() == complete)
        try Data(count: 10).write(to: folder.appendingPathComponent("library.sqlite-wal"))
        #expect(watch.current() != complete)

        // The download folder removed: no value until it is back.
        try FileManager.default.removeItem(at: downloads)
        #expect(watch.current() == nil)
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        #expect(watch.current() != nil)
    }

    /// A library kept in the download folder itself: one folder, one watch,
    /// and both its commits and a new podcast folder still count.
    @Test func aLibraryInsideTheDownloadFolderIsWatchedToo() throws {
        let downloads = FileManager.default.temporaryDirectory.appendingPathComponent(
            "feedsh-watch-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: downloads) }
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let watch = ChangeWatch(downloads: downloads, library: downloads.appendingPathComponent("library.sqlite"))
        let start = try #require(watch.current())
        try Data(count: 10).write(to: downloads.appendingPathComponent("library.sqlite-wal"))
        let committed = try #require(watch.current())
        #expect(committed != start)
        let podcast = downloads.appendingPathComponent("7")
        try FileManager.default.createDirectory(at: podcast, withIntermediateDirectories: true)
        let folder = try #require(watch.current())
        #expect(folder != committed)
        try Data(count: 10).write(to: podcast.appendingPathComponent("3.mp3"))
        #expect(watch.current() != folder)
    }

    /// Without a version every request renders; a render that fails is not kept.
    @Test func noVersionRendersEachTimeAndAFailureIsNotKept() async throws {
        let feeds = RenderedFeeds()
        let renders = Atomic<Int>(0)
        for _ in 0..<3 {
            _ = try await feeds.feed("k", version: nil, resource: "all") {
                renders.add(1, ordering: .relaxed)
                return "<rss/>"
            }
        }
        #expect(renders.load(ordering: .relaxed) == 3)
        struct Broken: Error {}
        await #expect(throws: Broken.self) {
            try await feeds.feed("k", version: FeedVersion(changes: 1), resource: "all") { throw Broken() }
        }
        let body = try await feeds.feed("k", version: FeedVersion(changes: 1), resource: "all") { "<rss>1</rss>" }
        #expect(body.map { String(buffer: $0.body) } == "<rss>1</rss>")
        let kept = try await feeds.feed("k", version: FeedVersion(changes: 1), resource: "all") { "<rss>2</rss>" }
        #expect(kept.map { String(buffer: $0.body) } == "<rss>1</rss>")
    }
}
