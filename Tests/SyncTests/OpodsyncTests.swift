import FeedKit
import Foundation
import HTTPSupport
import Library
import SocketTestSupport
import Synchronization
import Testing

@testable import Sync

/// The client and the synchronizer against opodsync, a real server: what one
/// library sends, another reads and merges.
@Suite("Sync against opodsync", .serialized)
struct OpodsyncTests {
    static let feedA = "http://feeds.example/a.xml"
    static let feedB = "http://feeds.example/b.xml"

    /// A library subscribed to feed A with two episodes, with no network.
    static func library(_ name: String) async throws -> (Library, [Int64]) {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-sync-\(name)-\(UUID().uuidString)/library.sqlite").path
        let library = try Library(path: path)
        return (library, try await fill(library))
    }

    /// Subscribes `library` to feed A with its two episodes; their IDs.
    @discardableResult
    static func fill(_ library: Library) async throws -> [Int64] {
        let (podcast, _) = try await library.subscribe(feedURL: URL(string: feedA)!, title: "A")
        var feed = Feed()
        feed.title = "A"
        feed.items = (1...2).map { n in
            var item = FeedItem(
                guid: "a-\(n)",
                title: "Episode \(n)",
                enclosure: Enclosure(url: URL(string: "http://media.example/a\(n).mp3")!)
            )
            item.duration = .seconds(600)
            return item
        }
        try await library.store(feed, for: podcast.id!, validators: (nil, nil))
        return try await library.episodes(of: podcast.id!).compactMap(\.id).sorted()
    }

    static func synchronizer(
        _ library: Library,
        _ server: Opodsync,
        device: String,
        password: String? = nil,
        flavor: SyncFlavor = .gpodder
    ) -> Synchronizer {
        let account = SyncAccount(server: server.url, user: server.user, device: device, flavor: flavor)
        let client = SyncClient(
            account: account,
            password: password ?? server.password,
            clients: clients,
            userAgent: "feedsh-tests"
        )
        return Synchronizer(client: client, library: library)
    }

    static let clients = HTTPClientPool(connectTimeout: .seconds(5), readTimeout: .seconds(20), followRedirects: false)

    /// Records what the sync asked of the shell.
    final class Keeper: Sendable {
        let asked = Mutex<[String]>([])
        var keeper: SubscriptionKeeper {
            SubscriptionKeeper(
                subscribe: { url in
                    self.asked.withLock { $0.append("subscribe \(url.absoluteString)") }
                    return nil
                },
                unsubscribe: { feed in
                    self.asked.withLock { $0.append("unsubscribe \(feed)") }
                    return nil
                }
            )
        }
    }

    @Test func whatOneDeviceDoesAnotherMerges() async throws {
        let server = try await Opodsync.start()
        defer { server.stop() }
        let (laptop, laptopIDs) = try await Self.library("laptop")
        let (phone, phoneIDs) = try await Self.library("phone")
        let laptopSync = Self.synchronizer(laptop, server, device: "laptop")
        let phoneSync = Self.synchronizer(phone, server, device: "phone")
        try await laptopSync.client.login()
        try await phoneSync.client.login()

        // Actions recorded before any sync wait in the outbox.
        let past = Date().addingTimeInterval(-60)
        try await laptop.mark([laptopIDs[0]], .played, at: past)
        try await laptop.savePosition(laptopIDs[1], seconds: 123.4, startedAt: 10, at: past)
        #expect(try await laptop.outboxSize().actions == 2)
        let first = try await laptopSync.sync(keeper: Keeper().keeper)
        #expect(first.pushed == [.play: 2])
        #expect(first.subscriptionsAdded == 1)
        #expect(try await laptop.outboxSize() == (0, 0))

        let keeper = Keeper()
        let merged = try await phoneSync.sync(keeper: keeper.keeper)
        #expect(merged.pulled[.play] == 2)
        #expect(merged.episodesChanged == 2)
        #expect(keeper.asked.withLock { $0 }.isEmpty)
        let played = try #require(try await phone.episode(phoneIDs[0]))
        #expect(played.played && played.position == 0 && !played.isNew)
        let stopped = try #require(try await phone.episode(phoneIDs[1]))
        #expect(!stopped.played && stopped.position == 123)

        // The phone listens on, later: the laptop takes its position; its own
        // older action, pulled again, does not move it back.
        try await phone.savePosition(phoneIDs[1], seconds: 300, startedAt: 123, at: Date().addingTimeInterval(2))
        let pushed = try await phoneSync.sync(keeper: Keeper().keeper)
        #expect(pushed.pushed == [.play: 1])
        let again = try await laptopSync.sync(keeper: Keeper().keeper)
        #expect(again.episodesChanged == 1)
        #expect(try await laptop.episode(laptopIDs[1])?.position == 300)

        // A newer local position stays where it is.
        try await laptop.savePosition(laptopIDs[1], seconds: 400, at: Date().addingTimeInterval(5))
        _ = try await phoneSync.sync(keeper: Keeper().keeper)
        _ = try await laptopSync.sync(keeper: Keeper().keeper)
        #expect(try await laptop.episode(laptopIDs[1])?.position == 400)
    }

    /// The Nextcloud gPodder Sync paths, as opodsync serves them: a Nextcloud
    /// device and a gpodder.net one share subscriptions and play state.
    @Test func nextcloudAndGpodderDevicesMeet() async throws {
        let server = try await Opodsync.start()
        defer { server.stop() }
        let (cloud, cloudIDs) = try await Self.library("nextcloud")
        let cloudSync = Self.synchronizer(cloud, server, device: "cloud", flavor: .nextcloud)
        try await cloudSync.client.login()
        try await cloud.mark([cloudIDs[0]], .played, at: Date().addingTimeInterval(-30))
        let sent = try await cloudSync.sync(keeper: Keeper().keeper)
        #expect(sent.pushed == [.play: 1])
        #expect(sent.subscriptionsAdded == 1)
        #expect(try await cloud.outboxSize() == (0, 0))

        let (phone, phoneIDs) = try await Self.library("gpodder")
        let phoneSync = Self.synchronizer(phone, server, device: "phone")
        try await phoneSync.client.login()
        let merged = try await phoneSync.sync(keeper: Keeper().keeper)
        #expect(merged.episodesChanged == 1)
        #expect(try await phone.episode(phoneIDs[0])?.played == true)

        try await phone.savePosition(phoneIDs[1], seconds: 200, startedAt: 0, at: Date().addingTimeInterval(1))
        _ = try await phoneSync.sync(keeper: Keeper().keeper)
        let back = try await cloudSync.sync(keeper: Keeper().keeper)
        #expect(back.episodesChanged == 1)
        #expect(try await cloud.episode(cloudIDs[1])?.position == 200)

        let refused = Self.synchronizer(cloud, server, device: "cloud", password: "guess", flavor: .nextcloud)
        await #expect(throws: SyncError.refused(user: server.user)) { try await refused.client.login() }
    }

    @Test func subscriptionsGoBothWays() async throws {
        let server = try await Opodsync.start()
        defer { server.stop() }
        let (laptop, _) = try await Self.library("laptop")
        let (phone, _) = try await Self.library("phone")
        let laptopSync = Self.synchronizer(laptop, server, device: "laptop")
        let phoneSync = Self.synchronizer(phone, server, device: "phone")
        try await laptopSync.client.login()
        try await phoneSync.client.login()
        _ = try await laptopSync.sync(keeper: Keeper().keeper)
        _ = try await phoneSync.sync(keeper: Keeper().keeper)

        let (b, _) = try await laptop.subscribe(feedURL: URL(string: Self.feedB)!, title: "B")
        let firstA = try #require(try await laptop.podcast(feedURL: URL(string: Self.feedA)!))
        try await laptop.unsubscribe(firstA.id!)
        let sent = try await laptopSync.sync(keeper: Keeper().keeper)
        #expect(sent.subscriptionsAdded == 1 && sent.subscriptionsRemoved == 1)
        let keeper = Keeper()
        let got = try await phoneSync.sync(keeper: keeper.keeper)
        #expect(keeper.asked.withLock { $0 } == ["unsubscribe \(Self.feedA)", "subscribe \(Self.feedB)"])
        #expect(got.subscribed == [Self.feedB] && got.unsubscribed == [Self.feedA])
        // What the phone did to follow is not sent back.
        #expect(try await phone.outboxSize().subscriptions == 0)
        _ = b
    }

    /// A feed that cannot be followed is remembered: the next sync does not ask
    /// for it (or for the history of actions) again at once, a later one does,
    /// and once it is followed the actions pulled while it waited are merged.
    @Test func aFeedThatCannotBeFollowedIsTriedAgainLater() async throws {
        let server = try await Opodsync.start()
        defer { server.stop() }
        let (laptop, laptopIDs) = try await Self.library("laptop")
        let phone = try Library(
            path: FileManager.default.temporaryDirectory
                .appendingPathComponent("feedsh-sync-empty-\(UUID().uuidString)/library.sqlite").path
        )
        let laptopSync = Self.synchronizer(laptop, server, device: "laptop")
        let phoneSync = Self.synchronizer(phone, server, device: "phone")
        try await laptopSync.client.login()
        try await phoneSync.client.login()
        try await laptop.mark([laptopIDs[0]], .played, at: Date().addingTimeInterval(-60))
        _ = try await laptopSync.sync(keeper: Keeper().keeper)
        let offline = SubscriptionKeeper(subscribe: { _ in "the feed is offline" }, unsubscribe: { _ in nil })
        let failed = try await phoneSync.sync(keeper: offline)
        #expect(failed.problems == ["cannot subscribe to \(Self.feedA): the feed is offline"])
        #expect(failed.followsWaiting == 1 && failed.unmatched == 1)
        let soon = Keeper()
        let again = try await phoneSync.sync(keeper: soon.keeper)
        #expect(soon.asked.withLock { $0 }.isEmpty)
        #expect(again.followsWaiting == 1 && again.problems.isEmpty && again.pulled.isEmpty, "\(again)")
        #expect(try await phone.failedFollows().map(\.problem) == ["the feed is offline"])

        let later = Date().addingTimeInterval(2 * 3600)
        let asked = Mutex<[String]>([])
        let online = SubscriptionKeeper(
            subscribe: { url in
                asked.withLock { $0.append(url.absoluteString) }
                _ = try? await Self.fill(phone)
                return nil
            },
            unsubscribe: { _ in nil }
        )
        let followed = try await phoneSync.sync(keeper: online, now: { later })
        #expect(asked.withLock { $0 } == [Self.feedA])
        #expect(followed.subscribed == [Self.feedA] && followed.followsWaiting == 0)
        #expect(followed.episodesChanged == 1, "\(followed)")
        let podcast = try #require(try await phone.podcast(feedURL: URL(string: Self.feedA)!))
        #expect(try await phone.episodes(of: podcast.id!).filter(\.played).map(\.guid) == ["a-1"])
        #expect(try await phone.failedFollows().isEmpty)
    }

    /// A flood of subscriptions from another device is followed at most
    /// `maxFollows` a sync; addresses no user types (link-local, other schemes)
    /// are said once and never followed; a `user:password@` address is named
    /// without its password.
    @Test func followingIsBoundedAndRefusesAddressesNoUserTypes() async throws {
        let server = try await Opodsync.start()
        defer { server.stop() }
        let (laptop, _) = try await Self.library("laptop")
        let phone = try Library(
            path: FileManager.default.temporaryDirectory
                .appendingPathComponent("feedsh-sync-flood-\(UUID().uuidString)/library.sqlite").path
        )
        let laptopSync = Self.synchronizer(laptop, server, device: "laptop")
        let account = SyncAccount(server: server.url, user: server.user, device: "phone", flavor: .gpodder)
        let phoneSync = Synchronizer(
            client: SyncClient(account: account, password: server.password, clients: Self.clients, userAgent: "t"),
            library: phone,
            maxFollows: 10
        )
        try await laptopSync.client.login()
        try await phoneSync.client.login()
        let flood = (1...25).map { "http://feeds.example/flood/\($0).xml" }
        let hostile = [
            "http://169.254.169.254/latest/meta-data/", "http://2852039166/feed.xml", "http://[fe80::1]/feed.xml",
        ]
        let secret = "http://bob:hunter2@feeds.example/private.xml"
        _ = try await laptopSync.client.uploadSubscriptions(add: flood + hostile + [secret], remove: [])
        // opodsync answers changes made in the second of `since` again: a sync in
        // the same second as the upload would be told of them twice.
        try await Task.sleep(for: .milliseconds(1100))
        var followed: [String] = []
        var reports: [SyncReport] = []
        for _ in 0..<4 {
            let keeper = Keeper()
            reports.append(try await phoneSync.sync(keeper: keeper.keeper))
            followed += keeper.asked.withLock { $0 }
        }
        #expect(reports.map(\.subscribed.count) == [10, 10, 6, 0], "\(reports.map(\.subscribed))")
        #expect(reports.map(\.followsWaiting) == [16, 6, 0, 0])
        #expect(Set(followed) == Set((flood + [secret]).map { "subscribe \($0)" }))
        let refused = reports[0].problems
        #expect(refused.count == 3, "\(refused)")
        #expect(refused.allSatisfy { $0.hasPrefix("not following ") && $0.contains("link-local") }, "\(refused)")
        #expect(reports.dropFirst().allSatisfy { $0.problems.isEmpty })
        let shown = reports.flatMap(\.subscribed)
        #expect(shown.contains("http://bob@feeds.example/private.xml") && !shown.contains(secret), "\(shown)")
    }

    @Test func aRefusedPasswordSaysWhose() async throws {
        let server = try await Opodsync.start()
        defer { server.stop() }
        let (library, _) = try await Self.library("refused")
        let sync = Self.synchronizer(library, server, device: "laptop", password: "wrong")
        await #expect(throws: SyncError.refused(user: "alice")) { try await sync.client.login() }
        try await library.mark(try await library.episodes(of: 1).compactMap(\.id), .played)
        let error = await #expect(throws: SyncError.self) { try await sync.sync(keeper: Keeper().keeper) }
        #expect(error?.description == "the server refused user alice's password")
        // Nothing left the outbox.
        #expect(try await library.outboxSize().actions == 2)
    }
}
