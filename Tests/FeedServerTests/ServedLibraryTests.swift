import Foundation
import Hummingbird
import HummingbirdTesting
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
