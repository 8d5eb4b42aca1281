import FeedKit
import FixtureServer
import Foundation
import HTTPSupport
import Library
import Testing

@testable import Sync

/// A server that answers what opodsync never would: a 500, an HTML page, a port
/// nobody listens on. Each fails the sync with a message naming the URL or host,
/// and leaves the outbox as it was.
@Suite("Sync against a bad server")
struct SyncFaultTests {
    static let clients = HTTPClientPool(connectTimeout: .seconds(5), readTimeout: .seconds(10), followRedirects: false)

    /// A library with `episodes` episodes marked played: as many actions in its outbox.
    static func library(episodes: Int = 1) async throws -> Library {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-sync-fault-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        let (podcast, _) = try await library.subscribe(feedURL: URL(string: "http://feeds.example/a.xml")!, title: "A")
        var feed = Feed()
        feed.items = (1...episodes).map {
            FeedItem(
                guid: "\($0)",
                title: "\($0)",
                enclosure: Enclosure(url: URL(string: "http://m.example/\($0).mp3")!)
            )
        }
        try await library.store(feed, for: podcast.id!, validators: (nil, nil))
        try await library.mark(try await library.episodes(of: podcast.id!).compactMap(\.id), .played)
        return library
    }

    static func sync(_ library: Library, server: URL, timeout: Duration = .seconds(60), maxPages: Int = 50)
        -> Synchronizer
    {
        let account = SyncAccount(server: server, user: "alice", device: "laptop", flavor: .gpodder)
        let client = SyncClient(
            account: account,
            password: FixtureServer.syncPassword,
            clients: clients,
            userAgent: "feedsh-tests",
            timeout: timeout
        )
        return Synchronizer(client: client, library: library, maxPages: maxPages)
    }

    static let keeper = SubscriptionKeeper(subscribe: { _ in nil }, unsubscribe: { _ in nil })

    /// While another sync of the library holds its lock, a sync waits for it,
    /// and past its wait fails saying so, before any request; once the lock is
    /// let go, the sync runs.
    @Test func aSyncWaitsForAnotherOfTheSameLibrary() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let account = SyncAccount(server: server.baseURL, user: "alice", device: "laptop", flavor: .gpodder)
        let client = SyncClient(
            account: account,
            password: FixtureServer.syncPassword,
            clients: Self.clients,
            userAgent: "t"
        )
        let synchronizer = Synchronizer(client: client, library: library, lockWait: .milliseconds(300))
        var held: SyncLock? = try await SyncLock.acquire(SyncLock.path(forLibrary: library.path), within: .zero)
        let error = await #expect(throws: SyncError.self) { try await synchronizer.sync(keeper: Self.keeper) }
        #expect(error?.code == "sync-busy")
        #expect(error?.description.hasPrefix("another feedsh has been syncing this library") == true)
        #expect(server.requests.isEmpty)
        #expect(try await library.outboxSize().actions == 1)
        _ = held
        held = nil
        let report = try await synchronizer.sync(keeper: Self.keeper)
        #expect(report.pushed[.play] == 1)
    }

    @Test(arguments: [
        ("status=500", "sync-status", "answered HTTP 500"),
        ("html", "sync-bad-reply", "answered not a JSON object at $"),
        // A 302 is not followed: an upload would come back as a GET whose answer
        // was taken as the acknowledgement, emptying the outbox.
        ("redirect=1", "sync-moved", "answered HTTP 302, a move to"),
    ])
    func aBadAnswerFailsTheSyncAndKeepsTheOutbox(fault: String, code: String, says: String) async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let base = server.baseURL.appendingPathComponent("fault/\(fault)")
        let error = await #expect(throws: SyncError.self) {
            try await Self.sync(library, server: base).sync(keeper: Self.keeper)
        }
        #expect(error?.code == code)
        #expect(error?.description.contains(says) == true, "\(error.map(String.init(describing:)) ?? "")")
        #expect(error?.description.contains(base.absoluteString) == true)
        #expect(try await library.outboxSize() == (1, 1))
        #expect(server.syncState(user: "alice").actions == 0)
    }

    /// The password opens a session on the first request and the session cookie
    /// stands for it afterwards (opodsync checks a password with bcrypt each
    /// time). A session the server ended is refused once and answered with the
    /// password, and the sync goes on.
    @Test func aSessionStandsForThePasswordUntilTheServerEndsIt() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let synchronizer = Self.sync(library, server: server.baseURL)
        _ = try await synchronizer.sync(keeper: Self.keeper)
        let first = server.requests
        #expect(first.count >= 4, "\(first.map(\.path))")
        #expect(first.first?.authorization != nil)
        #expect(first.first?.cookie == nil)
        for request in first.dropFirst() {
            #expect(request.authorization == nil, "\(request.path) carried the password")
            #expect(request.cookie?.hasPrefix("sessionid=") == true, "\(request.path) had no session")
        }
        let session = first.last?.cookie

        server.endSyncSessions()
        let episodes = try await library.episodes(of: 1).compactMap(\.id)
        try await library.mark(episodes, .unplayed)
        try await library.mark(episodes, .played)
        let queued = try await library.outboxSize().actions
        #expect(queued >= 1)
        let report = try await synchronizer.sync(keeper: Self.keeper)
        #expect(report.pushed.values.reduce(0, +) == queued)
        let second = Array(server.requests.dropFirst(first.count))
        try #require(second.count >= 3)
        // The ended session, refused; the same request with the password; a new session.
        #expect(second[0].cookie == session && second[0].authorization == nil)
        #expect(second[1].path == second[0].path && second[1].authorization != nil && second[1].cookie == nil)
        #expect(second[2].cookie != nil && second[2].cookie != session && second[2].authorization == nil)
        #expect(server.syncState(user: "alice").actions == 1 + queued)
    }

    @Test func anUnreachableServerIsNamed() async throws {
        let closed = try ClosedPort()
        let library = try await Self.library()
        let error = await #expect(throws: SyncError.self) {
            try await Self.sync(library, server: URL(string: "http://127.0.0.1:\(closed.port)")!).sync(
                keeper: Self.keeper
            )
        }
        #expect(error?.code == "sync-network")
        #expect(error?.description.contains("127.0.0.1:\(closed.port)") == true, "\(String(describing: error))")
        #expect(try await library.outboxSize() == (1, 1))
    }

    /// `https://` to a port that speaks plain HTTP: the handshake fails, and the
    /// message names the host and says TLS.
    @Test func aTLSFailureNamesTheHost() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let port = try #require(server.baseURL.port)
        let error = await #expect(throws: SyncError.self) {
            try await Self.sync(library, server: URL(string: "https://127.0.0.1:\(port)")!).sync(keeper: Self.keeper)
        }
        #expect(error?.code == "sync-network")
        #expect(error?.description.contains("TLS error with 127.0.0.1:\(port)") == true, "\(String(describing: error))")
        #expect(try await library.outboxSize() == (1, 1))
    }

    /// The server stored the upload, but the answer never came: the actions stay in
    /// the outbox and go again, so the server holds them at most twice and none
    /// is lost.
    @Test func anUploadStoredButUnansweredIsSentAgain() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let base = server.baseURL.appendingPathComponent("fault/drop-upload,times=1")
        let error = await #expect(throws: SyncError.self) {
            try await Self.sync(library, server: base).sync(keeper: Self.keeper)
        }
        #expect(error?.code == "sync-network")
        #expect(server.syncState(user: "alice").actions == 1)
        #expect(try await library.outboxSize() == (1, 0))
        let report = try await Self.sync(library, server: base).sync(keeper: Self.keeper)
        #expect(report.pushed == [.play: 1])
        #expect(try await library.outboxSize() == (0, 0))
        #expect(server.syncState(user: "alice").actions == 2)
    }

    /// The outbox goes a page at a time, each leaving it when answered: when the
    /// second page's answer is lost, the first page has left the outbox and the rest
    /// has not, and the next sync sends what is left.
    @Test func aPageLostMidwayLeavesOnlyTheAnsweredOnesSent() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library(episodes: 2_500)
        let base = server.baseURL.appendingPathComponent("fault/drop-upload,after=1")
        let error = await #expect(throws: SyncError.self) {
            try await Self.sync(library, server: base).sync(keeper: Self.keeper)
        }
        #expect(error?.code == "sync-network")
        #expect(server.syncState(user: "alice").actions == 2_000)
        #expect(try await library.outboxSize() == (1_500, 0))
        let report = try await Self.sync(library, server: server.baseURL).sync(keeper: Self.keeper)
        #expect(report.pushed == [.play: 1_500])
        #expect(try await library.outboxSize() == (0, 0))
        #expect(server.syncState(user: "alice").actions == 3_500)
    }

    /// A server slower than the request's time limit fails the sync naming the
    /// host, and nothing leaves the outbox.
    @Test func aSlowServerTimesOutAndKeepsTheOutbox() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let base = server.baseURL.appendingPathComponent("fault/delay=3000")
        let error = await #expect(throws: SyncError.self) {
            try await Self.sync(library, server: base, timeout: .milliseconds(500)).sync(keeper: Self.keeper)
        }
        #expect(error?.code == "sync-network")
        #expect(error?.description.contains("127.0.0.1") == true, "\(String(describing: error))")
        #expect(try await library.outboxSize() == (1, 1))
    }

    /// A reply cut short (its Content-Length promises more) is no acknowledgement.
    @Test func aTruncatedReplyFailsAndKeepsTheOutbox() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let base = server.baseURL.appendingPathComponent("fault/short=20")
        await #expect(throws: SyncError.self) {
            try await Self.sync(library, server: base).sync(keeper: Self.keeper)
        }
        #expect(try await library.outboxSize() == (1, 1))
        #expect(try await library.podcasts().count == 1)
    }

    /// The server's `update_urls` (here: without the `utm_` items) become the
    /// stored feed URLs, and the next sync sends nothing about them again.
    @Test func updateURLsRewriteTheStoredFeed() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let tracked = URL(string: "http://feeds.example/b.xml?utm_source=ad&id=7")!
        _ = try await library.subscribe(feedURL: tracked, title: "B")
        let report = try await Self.sync(library, server: server.baseURL).sync(keeper: Self.keeper)
        #expect(report.rewritten == 1)
        let urls = try await library.podcasts().map(\.podcast.feedURL).sorted()
        #expect(urls == ["http://feeds.example/a.xml", "http://feeds.example/b.xml?id=7"])
        #expect(server.syncState(user: "alice").subscriptions == urls)
        let again = try await Self.sync(library, server: server.baseURL).sync(keeper: Self.keeper)
        #expect(again.subscriptionsAdded == 0 && again.rewritten == 0 && again.subscribed.isEmpty)
    }

    /// A server with more full pages than one sync reads holds it no longer:
    /// the sync merges what it read, says more is left, and the next one goes on
    /// from there. A page stamped past tomorrow is refused as a cursor.
    @Test func aSyncReadsAtMostItsPagesAndRefusesACursorFromTheFuture() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let feed = "http://feeds.example/a.xml"
        let actions = (0..<2500).map {
            let at = ActionTime.format(Date(timeIntervalSince1970: 1_700_000_000 + Double($0)))
            return
                #"{"podcast": "\#(feed)", "episode": "http://m.example/\#($0).mp3", "action": "download", "timestamp": "\#(at)"}"#
        }
        server.addSyncActions(Data("[\(actions.joined(separator: ","))]".utf8), user: "alice")
        let first = try await Self.sync(library, server: server.baseURL, maxPages: 2).sync(keeper: Self.keeper)
        #expect(first.actionsLeft)
        #expect(first.pulled[.download] == 2000)
        let second = try await Self.sync(library, server: server.baseURL, maxPages: 2).sync(keeper: Self.keeper)
        #expect(!second.actionsLeft)
        #expect((second.pulled[.download] ?? 0) >= 500)
        let url = server.baseURL.appendingPathComponent("api/2/episodes/alice.json")
        #expect(throws: SyncError.self) {
            try ActionPage.decode(Data(#"{"actions": [], "timestamp": 8900000000000000000}"#.utf8), url: url)
        }
    }

    /// What another device sent that makes no sense here (an unknown kind, -1,
    /// a position past the end, no time zone, an episode no subscription has) is
    /// skipped, mended or counted; the sync goes on and the one good action lands.
    @Test func oddActionsFromAnotherDeviceAreHandled() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let library = try await Self.library()
        let feed = "http://feeds.example/a.xml"
        let enclosure = "http://m.example/1.mp3"
        // Newer than anything here (another device's clock an hour ahead), one
        // second apart; without a zone, and then with one.
        let later = (1...4).map { ActionTime.format(Date().addingTimeInterval(3600 + Double($0))) }
        server.addSyncActions(
            Data(
                """
                [{"podcast": "\(feed)", "episode": "\(enclosure)", "action": "flattr", "timestamp": "\(later[0])"},
                 {"podcast": "\(feed)", "episode": "\(enclosure)", "action": "play", "timestamp": "\(later[1])",
                  "started": 0, "position": -1, "total": -1},
                 {"podcast": "\(feed)", "episode": "http://m.example/nowhere.mp3", "action": "play",
                  "timestamp": "\(later[2])Z", "started": 0, "position": 10, "total": 100},
                 {"podcast": "\(feed)", "episode": "\(enclosure)", "action": "new", "timestamp": "\(later[3])Z"}]
                """.utf8
            ),
            user: "alice"
        )
        let report = try await Self.sync(library, server: server.baseURL).sync(keeper: Self.keeper)
        #expect(report.skipped.map(\.reason) == [.unknownKind("flattr")])
        #expect(report.unmatched == 1)
        #expect(report.episodesChanged == 1)
        let episode = try #require(try await library.episodes(of: try await library.podcasts()[0].podcast.id!).first)
        #expect(episode.played == false)
        #expect(episode.position == 0)
    }
}
