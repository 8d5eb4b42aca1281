import AsyncHTTPClient
import Foundation
import HTTPSupport
import NIOCore
import NIOFoundationCompat
import NIOPosix

/// Timeouts and identity for requests to the feed APIs.
public struct HTTPSettings: Sendable, Equatable {
    /// How long to wait for a TCP connection.
    public var connectTimeout: Duration
    /// How long a whole request (head and body) may take.
    public var requestTimeout: Duration
    /// How long a response may stall between bytes (downloads retry after it).
    public var readTimeout: Duration
    public var userAgent: String

    public init(
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(60),
        readTimeout: Duration = .seconds(30),
        userAgent: String = FeedKitVersion.userAgent
    ) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.readTimeout = readTimeout
        self.userAgent = userAgent
    }
}

/// feedsh's version, sent as the user agent and printed by `--version`.
public enum FeedKitVersion {
    public static let current = "0.1.0"
    /// Where a server's operator can read what feedsh is.
    public static let home = "https://github.com/feedsh/feedsh"
    /// `feedsh/0.1.0 (+https://...)`: a product and a contact, as crawlers send;
    /// some hosts refuse libraries' default agents.
    public static let userAgent = "feedsh/\(current) (+\(home))"
}

/// The HTTP layer for the API clients: GET a URL, check the status, collect a bounded
/// body, and turn every failure into a ``FeedError`` that names the URL or address.
///
/// One `HTTPFetcher` owns a pool of AsyncHTTPClient clients (one a proxy, see
/// ``HTTPSupport/HTTPClientPool``); call ``shutdown()`` when done.
public final class HTTPFetcher: HTTPFetching {
    /// The underlying clients, shared with the download engine.
    public let clients: HTTPClientPool
    public let settings: HTTPSettings

    /// Whether ``shutdown()`` shuts the clients down (this fetcher made them).
    private let ownsClients: Bool

    /// A fetcher with clients of its own, through the proxies given.
    public convenience init(settings: HTTPSettings = .init(), proxies: ProxyEnvironment = .direct) {
        self.init(
            clients: HTTPClientPool(
                connectTimeout: settings.connectTimeout,
                readTimeout: settings.readTimeout,
                proxies: proxies
            ),
            settings: settings,
            ownsClients: true
        )
    }

    /// A fetcher over clients shared with others (the download engine); the owner
    /// shuts them down.
    public init(clients: HTTPClientPool, settings: HTTPSettings, ownsClients: Bool = false) {
        self.clients = clients
        self.settings = settings
        self.ownsClients = ownsClients
    }

    public func shutdown() async throws {
        if ownsClients { try await clients.shutdown() }
    }

    /// A successful response's head and body.
    public typealias Body = HTTPBody

    /// GETs `url` and returns its body, which must arrive within the request timeout,
    /// be at most `limit` bytes and come with a 2xx status. `headers` are sent
    /// besides the user agent and `Accept` (an API's own authentication).
    public func get(
        _ url: URL,
        headers: [(name: String, value: String)] = [],
        limit: Int = 32 << 20
    ) async throws(FeedError) -> Body {
        try Self.refuseUnfetchable(url)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        request.headers.add(name: "Accept", value: "application/json, text/javascript;q=0.9, */*;q=0.1")
        // These clients pass bodies through as sent (the download engine shares
        // them), so a body is asked for, and taken only, as it is.
        request.headers.add(name: "Accept-Encoding", value: "identity")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        let start = ContinuousClock.now
        do {
            let response = try await clients.client(for: url).execute(
                request,
                timeout: TimeAmount(settings.requestTimeout)
            )
            guard (200..<300).contains(response.status.code) else {
                throw FeedError.httpStatus(Int(response.status.code), url: url)
            }
            if let encoding = response.headers.first(name: "Content-Encoding"),
                !["", "identity"].contains(encoding.lowercased().trimmingCharacters(in: .whitespaces))
            {
                throw FeedError.encoded(url: url, encoding: encoding)
            }
            let contentType = response.headers.first(name: "Content-Type")
            let buffer = try await response.body.collect(upTo: limit, within: settings.requestTimeout, since: start)
            return Body(url: url, contentType: contentType, data: Data(buffer: buffer))
        } catch let error as FeedError {
            throw error
        } catch let late as BodyDeadlineExceeded {
            throw .timedOut(url: url, after: late.after)
        } catch is NIOTooManyBytesError {
            throw .bodyTooLarge(url: url, limit: limit)
        } catch {
            throw Self.describe(clients.failure(error, url: url), url: url, timeout: Self.waited(since: start))
        }
    }

    /// Maps an AsyncHTTPClient or NIO error to a ``FeedError`` a person can act on,
    /// through the one mapping the download engine uses too.
    /// Only http and https with a host are fetched: a directory's result or a
    /// feed that names `http+unix://` or `unix://` would have AsyncHTTPClient
    /// speak HTTP to a local socket (Docker's, systemd's), and `file:` reads
    /// local files.
    static func refuseUnfetchable(_ url: URL) throws(FeedError) {
        guard NetworkFailure.isFetchable(url) else {
            throw .transport(
                url: url,
                detail: NetworkFailure(.unsupportedScheme(url.scheme ?? "none"), url: url).description
            )
        }
    }

    /// How long a request has waited since `start`, to a tenth of a second (whole
    /// seconds from 10 s): what "no answer within N s" says, whichever timeout
    /// ended it.
    static func waited(since start: ContinuousClock.Instant) -> Duration {
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        return .milliseconds(seconds >= 10 ? seconds.rounded() * 1000 : (seconds * 10).rounded() * 100)
    }

    static func describe(_ error: any Error, url: URL, timeout: Duration) -> FeedError {
        let failure = NetworkFailure(error, url: url)
        if let problem = failure.connectionProblem {
            return .connectionFailed(failure, problem: problem)
        }
        if failure.reason == .stalled {
            return .timedOut(url: url, after: timeout)
        }
        return .transport(url: url, detail: failure.description)
    }
}
