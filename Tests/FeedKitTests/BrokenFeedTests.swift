import FeedKit
import FixtureServer
import Foundation
import HTTPSupport
import Testing

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Feeds from a broken or hostile server: each is that feed's error, typed and
/// worded, never a crash (a cut-off body once trapped in FoundationXML).
///
/// The limit here is 4 MiB, so that these tests do not load the machine for the
/// timing tests beside them; the binary's end-to-end tests try the real 64 MiB.
@Suite("Feeds a broken server sends")
struct BrokenFeedTests {
    static let limit = 4 << 20

    /// The error fetching `path` ends in; nil when it does not fail.
    static func failure(_ path: String, tries: Int = 1) async throws -> FeedError? {
        try await fetched(path, tries: tries).failure
    }

    static func fetched(_ path: String, tries: Int = 1) async throws -> Result<FeedClient.Outcome, FeedError> {
        let server = try await FixtureServer.start()
        let client = FeedClient(retry: RetryPolicy(attempts: tries, baseDelay: .milliseconds(10)), sizeLimit: limit)
        let result: Result<FeedClient.Outcome, FeedError>
        do throws(FeedError) {
            result = .success(try await client.fetch(server.url(path)))
        } catch {
            result = .failure(error)
        }
        try await client.shutdown()
        await server.stop()
        return result
    }

    static func items(_ path: String) async throws -> [String] {
        guard case .fetched(let feed, _, _, _) = try await fetched(path).get() else { return [] }
        return feed.items.map(\.title)
    }

    /// Content-Length promises more than arrives (`short`), or the connection is
    /// reset mid-body (`drop`): the error says how much of how much arrived.
    @Test(arguments: ["short=120000", "drop=1500"])
    func aBodyThatBreaksOffIsTruncated(fault: String) async throws {
        let error = try #require(try await Self.failure("/fault/\(fault)/feeds/1386867488.xml"))
        #expect(error.code == .truncated)
        #expect(error.description.contains("ended after"))
        #expect(error.description.contains(" of "))
    }

    /// Retried like any dropped connection, and still an error in the end.
    /// A directory's result or a feed that names a local socket (`http+unix://`,
    /// `unix://`) or a file is refused before any connection: AsyncHTTPClient
    /// would speak HTTP to Docker's or systemd's socket.
    @Test(arguments: [
        "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json", "unix:///run/systemd/private", "file:///etc/passwd",
        "https+unix://%2Ftmp%2Fs.sock/feed.xml",
    ])
    func localSocketsAndFilesAreNeverFetched(address: String) async throws {
        let url = try #require(URL(string: address))
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        let fetcher = HTTPFetcher()
        var failures: [FeedError] = []
        do { _ = try await client.fetch(url) } catch { failures.append(error) }
        do { _ = try await fetcher.get(url) } catch { failures.append(error) }
        try await client.shutdown()
        try await fetcher.shutdown()
        #expect(failures.count == 2)
        #expect(failures.allSatisfy { $0.description.contains("only http and https are fetched") }, "\(failures)")
    }

    /// A server that sends its body a little at a time (never stalling long
    /// enough for the read timeout) holds no request past its whole deadline:
    /// an API request, a transcript or chapters, and a feed.
    @Test func aBodySentSlowlyEndsAtTheRequestsDeadline() async throws {
        let server = try await FixtureServer.start()
        let settings = HTTPSettings(requestTimeout: .seconds(1))
        let fetcher = HTTPFetcher(settings: settings)
        let client = FeedClient(settings: settings, retry: RetryPolicy(attempts: 1))
        var failures: [FeedError] = []
        var took: [Duration] = []
        // 10 kB a second, in chunks of 4 kB: never a stall, yet 72 s for the feed
        // and 11 minutes for the media at that rate.
        var started = ContinuousClock.now
        do { _ = try await fetcher.get(server.url("/fault/rate=10000/media/1386867488/1000700000001.mp3")) } catch {
            failures.append(error)
        }
        took.append(ContinuousClock.now - started)
        started = ContinuousClock.now
        do { _ = try await client.fetch(server.url("/fault/rate=10000/feeds/generate?n=2000&words=0")) } catch {
            failures.append(error)
        }
        took.append(ContinuousClock.now - started)
        try await fetcher.shutdown()
        try await client.shutdown()
        await server.stop()
        #expect(failures.map(\.code) == [.timedOut, .timedOut], "\(failures)")
        // Each within its second and a wide margin for a loaded machine.
        #expect(took.allSatisfy { $0 < .seconds(20) }, "\(took)")
    }

    /// A transcript sent gzip-encoded though asked for as it is: named as that,
    /// not as a malformed SRT ("line 1: a cue without a time").
    @Test func aCompressedTranscriptIsNamedAsCompressed() async throws {
        let server = try await FixtureServer.start()
        let fetcher = HTTPFetcher()
        let url = server.url("/fault/gzip/transcripts/tone-1.vtt")
        let error = await #expect(throws: FeedError.self) { try await fetcher.get(url) }
        #expect(server.requests.last?.acceptEncoding == "identity")
        try await fetcher.shutdown()
        await server.stop()
        #expect(error?.code == .encoded)
        #expect(
            error?.description
                == "\(url.absoluteString) sent its body compressed (Content-Encoding: gzip) although it was asked for it as it is"
        )
    }

    @Test func aTruncatedFeedIsRetriedThenFails() async throws {
        let error = try #require(try await Self.failure("/fault/drop=1500/feeds/1386867488.xml", tries: 3))
        #expect(error.code == .truncated)
    }

    /// Without a length, a cut-off document is malformed XML, not a feed.
    @Test func aCloseDelimitedBodyCutShortIsMalformed() async throws {
        let error = try #require(try await Self.failure("/fault/nolength,drop=1500/feeds/1386867488.xml"))
        #expect(error.code == .invalidFeed)
    }

    /// A document the parser refuses part way (an entity bomb) is that, not a body
    /// cut short, though fewer bytes were read than the length said.
    @Test func aRefusedDocumentIsNotTruncated() async throws {
        let error = try #require(try await Self.failure("/feeds/file/bomb.rss"))
        #expect(error.code == .invalidFeed)
    }

    @Test func aCloseDelimitedWholeBodyIsRead() async throws {
        #expect(try await Self.items("/fault/nolength/feeds/1386867488.xml").count == 5)
    }

    @Test(arguments: ["/feeds/huge.xml?mb=5", "/fault/nolength/feeds/huge.xml?mb=5"])
    func aFeedOverTheLimitIsRefused(path: String) async throws {
        let error = try #require(try await Self.failure(path))
        #expect(error.code == .bodyTooLarge)
        #expect(error.description.contains("larger than 4 MiB"))
    }

    /// A feed of megabytes under the limit is read.
    @Test func aFeedUnderTheLimitIsRead() async throws {
        #expect(try await Self.items("/feeds/huge.xml?mb=3") == ["The one item"])
    }

    /// The bomb is real gzip: a small one decompresses to the feed it pads.
    @Test func aSmallBombIsAFeed() async throws {
        #expect(try await Self.items("/feeds/bomb.xml?mb=2") == ["The one item"])
    }

    /// A megabyte-sized gzip body that decompresses to a GiB stops at 64 MiB.
    @Test func aGzipBombIsRefused() async throws {
        let error = try #require(try await Self.failure("/feeds/bomb.xml?mb=1024"))
        #expect(error.code == .decompressedTooLarge)
        #expect(error.description.contains("decompresses past 4 MiB"))
    }
}
