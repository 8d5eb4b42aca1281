import FeedServices
import Foundation
import Hummingbird
import HummingbirdTesting
import Library
import Testing

@testable import FeedServer

/// The web page's routes over a library on disk, through the router in memory.
@Suite struct WebRoutesTests {
    static func withWeb(
        notes: String = "<p>Gulls and <em>ropes</em>.</p><script>alert(1)</script>",
        _ body: @escaping @Sendable (ServedLibrary, any TestClientProtocol) async throws -> Void
    ) async throws {
        let served = try await ServedLibrary.make(notes: notes)
        let catalog = LibraryCatalog(services: served.services)
        let server = FeedServer(catalog: catalog, web: catalog, configuration: .init(), log: { _ in })
        try await Application(router: server.router()).test(.router) { client in try await body(served, client) }
        await served.close()
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test func everyAddressOfThePageLoadsThePageWithItsPolicy() async throws {
        try await Self.withWeb { _, client in
            for path in ["/", "/p/1", "/e/1:2", "/find?q=tide", "/queue", "/stats", "/bookmarks"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(policy.contains("default-src 'self'") && policy.contains("script-src 'self'"))
                    #expect(!policy.contains("unsafe-inline"))
                }
            }
            // The page, its script and style load nothing from another host, and
            // hold no inline script.
            for asset in [WebAssets.page] + WebAssets.all {
                let text = String(decoding: asset.bytes, as: UTF8.self)
                    .replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
                #expect(!text.contains("http://") && !text.contains("https://"), "\(asset.path)")
                #expect(!text.contains("//fonts.") && !text.contains("@import"), "\(asset.path)")
            }
            let page = String(decoding: WebAssets.page.bytes, as: UTF8.self)
            #expect(page.components(separatedBy: "<script").count == 2 && page.contains(#"<script src="/app.js""#))
            try await client.execute(uri: "/app.js", method: .get) { response in
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
            }
            try await client.execute(uri: "/manifest.webmanifest", method: .get) { response in
                let manifest = try Self.json(response)
                #expect(manifest["start_url"] as? String == "/")
            }
        }
    }

    /// The API answers with the values `--json` and mcp give.
    @Test func theAPIGivesTheSameValuesAsTheOtherFrontEnds() async throws {
        try await Self.withWeb { served, client in
            let expected = JSONValue(encoding: SubscriptionList(try await served.services.subscriptionEntries())).text
            try await client.execute(uri: "/api/subscriptions", method: .get) { response in
                #expect(String(buffer: response.body) == expected)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            }
            try await client.execute(uri: "/api/podcasts/1", method: .get) { response in
                let episodes = try Self.json(response)["episodes"] as? [[String: Any]] ?? []
                #expect(episodes.map { $0["ref"] as? String } == ["1:1", "1:2", "1:3"])
                #expect(
                    episodes.map { ($0["status"] as? [String: Any])?["state"] as? String } == [
                        "downloaded", "downloaded", "none",
                    ]
                )
            }
            try await client.execute(uri: "/api/episodes/1:1", method: .get) { response in
                let answer = try Self.json(response)
                let episode = answer["episode"] as? [String: Any] ?? [:]
                #expect(episode["ref"] as? String == "1:1" && episode["transcriptKept"] as? Bool == false)
                #expect((answer["media"] as? String)?.hasPrefix("/media/") == true)
                // The notes through the allow-list: the script is gone.
                #expect(answer["notesHTML"] as? String == "<p>Gulls and <em>ropes</em>.</p>")
            }
            try await client.execute(uri: "/api/episodes/1:3", method: .get) { response in
                let answer = try Self.json(response)
                #expect(answer["media"] is NSNull)
            }
            for (path, status) in [
                ("/api/episodes/1:9", HTTPResponse.Status.notFound), ("/api/episodes/x", .notFound),
                ("/api/podcasts/7", .notFound), ("/api/stats?by=year", .badRequest),
                ("/api/find?q=%22open", .badRequest),
                ("/api/find?q=tide", .ok),
            ] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == status, "\(path)") }
            }
            try await client.execute(uri: "/api/episodes/1:9", method: .get) { response in
                let answer = try Self.json(response)
                #expect(answer["error"] as? String == "subscription 1 has episodes 1-3, not 9")
            }
        }
    }

    /// A place saved from the page is the library's, through the call the
    /// shell's player saves through; a page of another origin cannot save one.
    @Test func aPlaceIsSavedOnlyFromThisServersOwnPage() async throws {
        try await Self.withWeb { served, client in
            let episodeID = try #require(served.episodes[0].id)
            let body = ByteBuffer(string: #"{"seconds": 42.5, "startedAt": 10}"#)
            for (name, value) in [("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")] {
                try await client.execute(
                    uri: "/api/episodes/1:1/place",
                    method: .post,
                    headers: [.init(name)!: value],
                    body: body
                ) { #expect($0.status == .forbidden, "\(name)") }
            }
            #expect(try await served.library.episode(episodeID)?.position == 0)
            try await client.execute(
                uri: "/api/episodes/1:1/place",
                method: .post,
                // The router's tests name this server `localhost`.
                headers: [.init("Origin")!: "http://localhost"],
                body: body
            ) { response in
                #expect(response.status == .ok)
                let answer = try Self.json(response)
                #expect(answer["position"] as? Double == 42.5)
            }
            #expect(try await served.library.episode(episodeID)?.position == 42.5)
            // The stretch heard counts in the history, as the terminal's plays do.
            let heard = try await served.library.playbacks()
            #expect(heard.map(\.fromSeconds) == [10] && heard.map(\.toSeconds) == [42.5])
            // sendBeacon's body is text/plain; the end marks it played and out of the queue.
            try await served.library.enqueue([episodeID])
            try await client.execute(
                uri: "/api/episodes/1:1/place",
                method: .post,
                headers: [.contentType: "text/plain;charset=UTF-8", .init("Sec-Fetch-Site")!: "same-origin"],
                body: ByteBuffer(string: #"{"seconds": 120, "startedAt": 42.5, "ended": true}"#)
            ) { response in
                let answer = try Self.json(response)
                #expect(answer["played"] as? Bool == true)
            }
            #expect(try await served.library.queue().isEmpty)
            // Nonsense is refused and changes nothing.
            try await client.execute(
                uri: "/api/episodes/1:2/place",
                method: .post,
                body: ByteBuffer(string: #"{"seconds": "soon"}"#)
            ) { #expect($0.status == .badRequest) }
            #expect(try await served.library.episode(try #require(served.episodes[1].id))?.position == 0)
        }
    }

    @Test func aBookmarkMadeOnThePageIsListedEverywhere() async throws {
        try await Self.withWeb { served, client in
            try await client.execute(
                uri: "/api/episodes/1:2/bookmarks",
                method: .post,
                body: ByteBuffer(string: #"{"at": 30, "note": "gulls \u001b[31m"}"#)
            ) { response in
                let made = try Self.json(response)
                #expect(made["number"] as? String == "b1" && made["ref"] as? String == "1:2")
                #expect(made["note"] as? String == "gulls")
            }
            #expect(try await served.services.bookmarkEntries().map(\.at) == [30])
            try await client.execute(uri: "/api/bookmarks", method: .get) { response in
                let answer = try Self.json(response)
                #expect((answer["bookmarks"] as? [[String: Any]])?.count == 1)
            }
            try await client.execute(
                uri: "/api/episodes/1:2/bookmarks",
                method: .post,
                body: ByteBuffer(string: #"{"at": 9999}"#)
            ) { #expect($0.status == .badRequest) }
        }
    }

    @Test func withoutThePageThereIsNoPageAndNoAPI() async throws {
        let served = try await ServedLibrary.make()
        try await Application(router: served.server().router()).test(.router) { client in
            for path in ["/", "/e/1:1", "/app.js", "/api/subscriptions"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
            try await client.execute(uri: "/feeds/all.xml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentSecurityPolicy] == nil)
            }
        }
        await served.close()
    }
}
