import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import HTTPSupport

@Suite struct NetworkFailureTests {
    let url = URL(string: "http://feeds.example:8080/a.mp3")!

    @Test func mapsLibraryErrorsToOneVocabulary() {
        let cases: [(any Error, NetworkFailure.Reason)] = [
            (IOError(errnoCode: ECONNREFUSED, reason: "connect"), .connectionRefused),
            (IOError(errnoCode: ENETUNREACH, reason: "connect"), .unreachable),
            (IOError(errnoCode: ECONNRESET, reason: "read"), .connectionDropped),
            (HTTPClientError.connectTimeout, .connectTimeout),
            (HTTPClientError.readTimeout, .stalled),
            (HTTPClientError.remoteConnectionClosed, .connectionDropped),
            (HTTPClientError.redirectCycleDetected, .redirectLoop),
            (HTTPClientError.redirectLimitReached, .tooManyRedirects),
        ]
        for (error, reason) in cases {
            let failure = NetworkFailure(error, url: url)
            #expect(failure.reason == reason, "\(error)")
            #expect(failure.host == "feeds.example")
            #expect(failure.port == 8080)
        }
    }

    /// A proxy that closes the connection mid-handshake reaches AsyncHTTPClient's
    /// handlers either as `remoteConnectionClosed` or as their private `NoResult`,
    /// depending on which event comes first; both name the proxy as a dropped
    /// connection (CI once printed the bare `NoResult()`).
    @Test func aHandshakeTheProxyAbandonedIsADroppedConnection() {
        let reflected =
            "AsyncHTTPClient.HTTP1ProxyConnectHandler.(unknown context at $55a03e4218bc)"
            + ".(unknown context at $55a03e4218c4).NoResult"
        #expect(NetworkFailure.isAbandonedHandshake(typeName: reflected))
        #expect(!NetworkFailure.isAbandonedHandshake(typeName: "FeedShell.NoResult"))
        #expect(!NetworkFailure.isAbandonedHandshake(typeName: "AsyncHTTPClient.HTTPClientError"))
        struct NoResult: Error {}
        #expect(NetworkFailure(NoResult(), url: url).reason == .other("NoResult()"))
        let proxy = ProxyServer(host: "127.0.0.1", port: 3128)
        let dropped = NetworkFailure(HTTPClientError.remoteConnectionClosed, url: url, proxy: proxy)
        #expect(dropped.throughProxy && dropped.port == 3128)
    }

    @Test func aFailureIsKeptAsItIs() {
        let failure = NetworkFailure(.tls("bad certificate"), host: "h", port: 443)
        #expect(NetworkFailure(failure, url: url) == failure)
    }

    @Test func onlyWhatMayRecoverIsTransient() {
        let transient: [NetworkFailure.Reason] = [.connectTimeout, .connectionDropped, .stalled, .other("x")]
        let final: [NetworkFailure.Reason] = [
            .connectionRefused, .unknownHost, .unreachable, .tls("x"), .redirectLoop, .tooManyRedirects,
        ]
        for reason in transient { #expect(NetworkFailure(reason, url: url).isTransient) }
        for reason in final { #expect(!NetworkFailure(reason, url: url).isTransient) }
    }

    @Test func descriptionsNameTheAddress() {
        #expect(
            NetworkFailure(.connectionRefused, url: url).description
                == "cannot connect to feeds.example:8080: connection refused"
        )
        #expect(NetworkFailure(.tooManyRedirects, url: url).description == "too many redirects from feeds.example")
        #expect(NetworkFailure(.stalled, url: url).description == "feeds.example:8080 stopped sending")
        let https = NetworkFailure(.redirectLoop, url: URL(string: "https://h.example/x")!)
        #expect(https.port == 443)
        #expect(https.description == "h.example redirects in a loop")
    }
}

@Suite struct HTTPDateTests {
    @Test func roundTripsIMFFixdate() throws {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("yesterday") == nil)
    }

    /// The hand-made formatting agrees with Foundation's DateFormatter on dates
    /// across centuries, leap days and every weekday and month.
    @Test func formatsAsDateFormatterDoes() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        let fixed: [TimeInterval] = [0, -1, 951_782_400, 4_107_542_399.75, 1_796_000_000.999, -2_208_988_800]
        let random = (0..<2000).map { _ in
            TimeInterval(Int64.random(in: -3_000_000_000...5_000_000_000, using: &generator))
        }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(HTTPDate.format(date) == formatter.string(from: date), "\(seconds)")
        }
    }

    @Test func statusPhrasesComeFromNIO() {
        #expect(HTTPStatusPhrase.suffix(404) == " Not Found")
        #expect(HTTPStatusPhrase.suffix(503) == " Service Unavailable")
        #expect(HTTPStatusPhrase.suffix(599) == "")
    }
}

/// The pool makes a client at its first request, not before: a start that sends
/// nothing starts no event loop threads. A request after shutdown gets a client
/// that is shut down, and fails as such instead of trapping.
@Suite struct HTTPClientPoolTests {
    @Test func aClientIsMadeAtItsFirstRequest() async throws {
        let pool = HTTPClientPool(connectTimeout: .seconds(1), readTimeout: .seconds(1))
        #expect(pool.clientsMade == 0)
        let first = pool.client(for: URL(string: "http://a.example/feed.xml")!)
        let second = pool.client(for: URL(string: "http://b.example/feed.xml")!)
        #expect(first === second)
        #expect(pool.clientsMade == 1)
        try await pool.shutdown()
    }

    @Test func aRequestAfterShutdownFailsAsShutDown() async throws {
        let pool = HTTPClientPool(connectTimeout: .seconds(1), readTimeout: .seconds(1))
        try await pool.shutdown()
        let late = pool.client(for: URL(string: "http://127.0.0.1:9/feed.xml")!)
        #expect(pool.clientsMade == 1)
        await #expect(throws: HTTPClientError.alreadyShutdown) {
            _ = try await late.execute(HTTPClientRequest(url: "http://127.0.0.1:9/feed.xml"), timeout: .seconds(1))
        }
        #expect(pool.client(for: URL(string: "http://127.0.0.1:9/other.xml")!) === late)
    }
}
