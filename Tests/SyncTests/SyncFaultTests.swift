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
    static let clients = HTTPClientPool(connectTimeout: .seconds(5), readTimeout: .seconds(10))

    static func library() async throws -> Library {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-sync-fault-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        let (podcast, _) = try await library.subscribe(feedURL: URL(string: "http://feeds.example/a.xml")!, title: "A")
        var feed = Feed()
        feed.items = [
            FeedItem(guid: "1", title: "1", enclosure: Enclosure(url: URL(string: "http://m.example/1.mp3")!))
        ]
        try await library.store(feed, for: podcast.id!, validators: (nil, nil))
        try await library.mark(try await library.episodes(of: podcast.id!).compactMap(\.id), .played)
        return library
    }

    static func sync(_ library: Library, server: URL) -> Synchronizer {
        let account = SyncAccount(server: server, user: "alice", device: "laptop", flavor: .gpodder)
        let client = SyncClient(account: account, password: "secret", clients: clients, userAgent: "feedsh-tests")
        return Synchronizer(client: client, library: library)
    }

    static let keeper = SubscriptionKeeper(subscribe: { _ in nil }, unsubscribe: { _ in nil })

    @Test(arguments: [
        ("status=500", "sync-status", "answered HTTP 500"),
        ("html", "sync-bad-reply", "answered not a JSON object at $"),
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
}
