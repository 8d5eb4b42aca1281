import FeedKit
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import FeedServer

/// `serve` over real services and a library on disk, through the router in
/// memory: no socket.
@Suite struct ServedLibraryTests {
    /// Answering feed polls reads the library and the folder: it makes no HTTP
    /// client (no event loop threads) and starts no download.
    @Test func answeringFeedsMakesNoClientAndStartsNoDownload() async throws {
        let served = try await ServedLibrary.make()
        try await Application(router: served.server().router()).test(.router) { client in
            try await client.execute(uri: "/feeds/all.xml", method: .get) { response in
                #expect(response.status == .ok)
                let body = String(buffer: response.body)
                #expect(body.components(separatedBy: "<item>").count - 1 == 2)
            }
            try await client.execute(uri: "/feeds/1.xml", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/subscriptions.opml", method: .get) { #expect($0.status == .ok) }
        }
        #expect(served.services.sources.clientsMade == 0)
        #expect(await served.services.downloads.engine.all().isEmpty)
        await served.close()
    }
}

extension ServedLibraryTests {
    /// One podcast subscribed under a second address, its episodes downloaded
    /// there too: `/feeds/all.xml` gives each GUID once.
    @Test func onePodcastUnderTwoAddressesIsInTheFeedOnce() async throws {
        let served = try await ServedLibrary.make()
        let again = try #require(
            try await served.library.subscribe(feedURL: URL(string: "http://feeds.example/harbour.xml")!, title: "H")
                .podcast.id
        )
        var feed = Feed()
        feed.title = "Harbour Sounds"
        feed.items = served.episodes.prefix(1).map { stored in
            FeedItem(
                guid: stored.guid,
                title: stored.title,
                published: stored.published,
                enclosure: Enclosure(url: URL(string: stored.audioURL)!, type: "audio/mpeg")
            )
        }
        _ = try await served.library.store(feed, for: again, validators: (nil, nil))
        let podcast = try #require(try await served.library.podcast(again))
        let stored = try #require(try await served.library.episodes(of: again).first)
        try served.download(stored, of: podcast)
        try await Application(router: served.server().router()).test(.router) { client in
            try await client.execute(uri: "/feeds/all.xml", method: .get) { response in
                let body = String(buffer: response.body)
                let guids = body.components(separatedBy: "<guid").dropFirst().map { $0.prefix { $0 != "<" } }
                #expect(guids.count == 2 && Set(guids).count == 2, "\(guids)")
            }
        }
        await served.close()
    }
}

/// serve's request log: one line a request, written once its body is sent.
@Suite struct RequestLogTests {
    final class Lines: Sendable {
        let lines = Mutex<[ServeLogLine]>([])
    }

    @Test func eachRequestIsLoggedOnceWithItsBodysSize() async throws {
        let served = try await ServedLibrary.make()
        let lines = Lines()
        let server = FeedServer(
            catalog: LibraryCatalog(services: served.services),
            configuration: .init(),
            log: { line in lines.lines.withLock { $0.append(line) } }
        )
        let item = LibraryCatalog(services: served.services).served(served.episodes[0], of: served.podcast)
        let media = "/media/" + (try #require(item).mediaPath)
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/feeds/all.xml", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: media, method: .get) { #expect($0.body.readableBytes == 4096) }
            try await client.execute(uri: "/feeds/9.xml", method: .get) { #expect($0.status == .notFound) }
        }
        let logged = lines.lines.withLock { $0 }
        #expect(logged.map(\.status) == [200, 200, 404])
        #expect(logged[1].path == media && logged[1].bytes == 4096)
        #expect(ServeFrontEnd.requestText(logged[1]).hasSuffix(" 4096 B \(logged[1].milliseconds) ms"))
        await served.close()
    }
}
