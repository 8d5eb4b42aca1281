import FixtureServer
import Foundation
import Testing

@testable import FeedKit

@Suite("Podcast Index")
struct PodcastIndexTests {
    private let demo = PodcastIndexCredentials(
        key: FixtureServer.podcastIndexKey,
        secret: FixtureServer.podcastIndexSecret
    )

    /// A vector computed apart from this code (`printf '%s' KEYSECRETDATE | sha1sum`),
    /// with the key and secret of the Index's own example: a plain SHA-1, lowercase.
    @Test func authorizationIsThePlainSHA1OfKeySecretAndDate() {
        let credentials = PodcastIndexCredentials(
            key: "UXKCGDSYGUUEVQJSYDZH",
            secret: "yzJe2eE7XV-3eY576dyRZ6wXyAbndh6LUrCZ8KN|"
        )
        #expect(credentials.authorization(date: 1_612_345_678) == "37cad6481ee418981928d98f3f0267ce1240d61e")
        #expect(demo.authorization(date: 1_795_000_000) != credentials.authorization(date: 1_795_000_000))
    }

    @Test func signedHeadersAndTheSearchURL() throws {
        let http = HTTPFetcher()
        defer { Task { try await http.shutdown() } }
        let client = PodcastIndexClient(baseURL: Endpoints.defaultPodcastIndex, credentials: demo, http: http)
        #expect(
            client.searchURL(term: "caf\u{E9} & co", limit: 3).absoluteString
                == "https://api.podcastindex.org/api/1.0/search/byterm?q=caf%C3%A9%20%26%20co&max=3"
        )
        let headers = Dictionary(uniqueKeysWithValues: client.headers(date: Date(timeIntervalSince1970: 1_795_000_000)))
        #expect(headers["X-Auth-Key"] == FixtureServer.podcastIndexKey)
        #expect(headers["X-Auth-Date"] == "1795000000")
        #expect(headers["Authorization"] == demo.authorization(date: 1_795_000_000))
    }

    @Test func searchFindsFeedsAndSkipsABadRecord() async throws {
        try await withClient { server, http in
            let client = PodcastIndexClient(baseURL: server.url("/api/1.0"), credentials: demo, http: http)
            let found = try await client.search(term: "feedsh", limit: 10)
            // The record without a feed URL is skipped; an empty author is none.
            #expect(found.map(\.id) == [7_100_001, 7_100_004, 7_100_006])
            let tones = try #require(found.first)
            #expect(tones.directory == .podcastIndex)
            #expect(tones.feedURL == server.url("/feeds/listening.xml"))
            #expect(tones.episodeCount == 5)
            // The category with the lowest ID.
            #expect(tones.genre == "Arts")
            let chapters = try await client.search(term: "chapters", limit: 10)
            #expect(chapters.map(\.artist) == [nil])
            #expect(try await client.search(term: "o", limit: 2).count == 2)
            let request = try #require(server.requests.last)
            #expect(request.path == "/api/1.0/search/byterm")
            #expect(request.userAgent == FeedKitVersion.userAgent)
            #expect(request.userAgent?.hasPrefix("feedsh/\(FeedKitVersion.current) (+https://") == true)
        }
    }

    @Test func aRefusedKeyIsNamedWithWhereItComesFrom() async throws {
        try await withClient { server, http in
            let wrong = PodcastIndexCredentials(key: FixtureServer.podcastIndexKey, secret: "not-the-secret")
            let client = PodcastIndexClient(baseURL: server.url("/api/1.0"), credentials: wrong, http: http)
            let error = await #expect(throws: FeedError.self) { try await client.search(term: "tones", limit: 5) }
            #expect(error?.code == .unauthorized && error?.keyRefused == true)
            // Where a key comes from is the front end's to say.
            #expect(error?.description == "the Podcast Index at 127.0.0.1 refused key 'FEEDSHDEMOKEY' (HTTP 401)")
        }
    }

    /// An HTML page, a cut-off body and a server error are each a clear error.
    @Test(arguments: [
        ("/fault/html/api/1.0", FeedError.Code.notJSON),
        // Cut off after the head: "the connection to HOST:PORT dropped".
        ("/fault/drop=120/api/1.0", FeedError.Code.transport),
        ("/fault/status=500/api/1.0", FeedError.Code.httpStatus),
    ])
    func badRepliesAreClearErrors(base: String, code: FeedError.Code) async throws {
        try await withClient { server, http in
            let client = PodcastIndexClient(baseURL: server.url(base), credentials: demo, http: http)
            let error = await #expect(throws: FeedError.self) { try await client.search(term: "tones", limit: 5) }
            #expect(error?.code == code, "\(error?.description ?? "")")
        }
    }
}
