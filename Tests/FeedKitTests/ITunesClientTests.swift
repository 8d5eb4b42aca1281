import FixtureServer
import Foundation
import Testing

@testable import FeedKit

func withClient<T>(
    settings: HTTPSettings = .init(),
    _ body: (FixtureServer, HTTPFetcher) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start()
    let http = HTTPFetcher(settings: settings)
    do {
        let result = try await body(server, http)
        try await http.shutdown()
        await server.stop()
        return result
    } catch {
        try await http.shutdown()
        await server.stop()
        throw error
    }
}

@Suite("iTunes client")
struct ITunesClientTests {
    @Test func lookupURLIsBuiltWithComponents() {
        let client = ITunesClient(baseURL: URL(string: "http://h:1/prefix")!, http: HTTPFetcher())
        defer { Task { try await client.httpForTests.shutdown() } }
        #expect(
            client.lookupURL(id: 1_386_867_488, limit: 5).absoluteString
                == "http://h:1/prefix/lookup?id=1386867488&media=podcast&entity=podcastEpisode&limit=5"
        )
    }

    @Test func looksUpFromTheFixtureServer() async throws {
        try await withClient { server, http in
            let podcast = try await ITunesClient(baseURL: server.baseURL, http: http).lookup(
                id: 1_386_867_488,
                limit: 3
            )
            #expect(podcast.title == "Loopback Radio")
            #expect(podcast.episodes.count == 3)
            #expect(podcast.episodes[0].audioURL.absoluteString.hasPrefix(server.baseURL.absoluteString + "/media/"))
            let recorded = try #require(server.requests.last)
            #expect(recorded.path == "/lookup")
            #expect(recorded.query == "id=1386867488&media=podcast&entity=podcastEpisode&limit=3")
        }
    }

    /// A server that sends more episodes than asked for does not get them shown.
    @Test func lookupKeepsAtMostTheLimit() async throws {
        try await withClient { server, http in
            let client = ITunesClient(baseURL: server.url("/fault/nolimit"), http: http)
            let podcast = try await client.lookup(id: 1_000_000_001, limit: 7)
            #expect(podcast.episodes.count == 7)
            #expect(server.requests.last?.query?.contains("limit=7") == true)
        }
    }

    @Test func unknownIDIsNotFound() async throws {
        try await withClient { server, http in
            let error = await #expect(throws: FeedError.self) {
                try await ITunesClient(baseURL: server.baseURL, http: http).lookup(id: 99, limit: 5)
            }
            #expect(error?.code == .notFound)
            #expect(error?.description == "no podcast with id 99")
        }
    }

    @Test(arguments: [404, 500, 503])
    func httpStatusCarriesStatusAndURL(status: Int) async throws {
        try await withClient { server, http in
            let base = server.url("/fault/status=\(status)")
            let client = ITunesClient(baseURL: base, http: http)
            let error = await #expect(throws: FeedError.self) { try await client.lookup(id: 1, limit: 1) }
            #expect(error?.code == .httpStatus)
            #expect(error?.status == status)
            #expect(error?.url == client.lookupURL(id: 1, limit: 1))
            #expect(error?.description.hasPrefix("HTTP \(status) ") == true)
        }
    }

    @Test func htmlBodyIsDescribed() async throws {
        try await withClient { server, http in
            let client = ITunesClient(baseURL: server.url("/fault/html"), http: http)
            let error = await #expect(throws: FeedError.self) { try await client.lookup(id: 1, limit: 1) }
            #expect(error?.code == .notJSON)
            let url = client.lookupURL(id: 1, limit: 1).absoluteString
            #expect(error?.description == "expected JSON from \(url), got text/html; charset=utf-8, 91 B")
        }
    }

    @Test func malformedPodcastNamesKeyPathAndURL() async throws {
        try await withClient { server, http in
            let client = ITunesClient(baseURL: server.baseURL, http: http)
            let error = await #expect(throws: FeedError.self) { try await client.lookup(id: 1_000_000_003, limit: 5) }
            #expect(error?.code == .decoding)
            #expect(error?.keyPath == "results[0].collectionName")
            #expect(error?.description.contains("from \(client.lookupURL(id: 1_000_000_003, limit: 5))") == true)
        }
    }

    @Test func refusedConnectionNamesHostAndPort() async throws {
        let closed = try ClosedPort()
        let base = URL(string: "http://127.0.0.1:\(closed.port)")!
        let http = HTTPFetcher()
        let error = await #expect(throws: FeedError.self) {
            try await ITunesClient(baseURL: base, http: http).lookup(id: 1, limit: 1)
        }
        try await http.shutdown()
        withExtendedLifetime(closed) {}
        #expect(error?.code == .connectionFailed)
        #expect(error?.description == "cannot connect to 127.0.0.1:\(base.port!): connection refused")
    }

    @Test func slowServerTimesOut() async throws {
        try await withClient(settings: HTTPSettings(requestTimeout: .milliseconds(300))) { server, http in
            let client = ITunesClient(baseURL: server.url("/fault/delay=3000"), http: http)
            let error = await #expect(throws: FeedError.self) { try await client.lookup(id: 1, limit: 1) }
            #expect(error?.code == .timedOut)
            // The wait it took, measured: the 0.3 s deadline and the time to see
            // it (seconds more on a machine running the whole suite).
            let said = error?.description ?? ""
            let waited = said.split(separator: " ").dropLast().last.flatMap { Double($0) }
            #expect(said.hasSuffix(" s") && (0.3..<30).contains(waited ?? -1), "\(said)")
        }
    }

    @Test func invalidJSONSaysSo() {
        let url = URL(string: "http://h/lookup")!
        let decodingError: any Error
        do {
            _ = try JSONDecoder().decode(Podcast.self, from: Data("{\"results\": [".utf8))
            return
        } catch {
            decodingError = error
        }
        let error = FeedError(decoding: decodingError, url: url, byteCount: 13)
        #expect(error.code == .invalidJSON)
        #expect(error.description.hasPrefix("invalid JSON from http://h/lookup (13 B): "))
    }
}

extension ITunesClient {
    /// Not part of the API: lets a test shut down a client it built inline.
    var httpForTests: HTTPFetcher { Mirror(reflecting: self).descendant("http") as! HTTPFetcher }
}
