import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOPosix

/// Timeouts and identity for requests to the feed APIs.
public struct HTTPSettings: Sendable, Equatable {
    /// How long to wait for a TCP connection.
    public var connectTimeout: Duration
    /// How long a whole request (head and body) may take.
    public var requestTimeout: Duration
    public var userAgent: String

    public init(
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(60),
        userAgent: String = "feedsh/\(FeedKitVersion.current)"
    ) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.userAgent = userAgent
    }
}

/// feedsh's version, sent as the user agent and printed by `--version`.
public enum FeedKitVersion {
    public static let current = "0.1.0"
}

/// The HTTP layer for the API clients: GET a URL, check the status, collect a bounded
/// body, and turn every failure into a ``FeedError`` that names the URL or address.
///
/// One `HTTPFetcher` owns one AsyncHTTPClient `HTTPClient` (and its connection pool);
/// call ``shutdown()`` when done.
public final class HTTPFetcher: Sendable {
    /// The underlying client, shared with the download engine.
    public let client: HTTPClient
    public let settings: HTTPSettings

    public init(settings: HTTPSettings = .init()) {
        self.settings = settings
        var configuration = HTTPClient.Configuration(
            timeout: .init(connect: TimeAmount(settings.connectTimeout), read: nil)
        )
        configuration.httpVersion = .http1Only
        // Fail at once on a refused connection instead of retrying until the connect
        // timeout: feedsh retries where it makes sense (downloads) on its own terms.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// A successful response's head and body.
    public struct Body: Sendable {
        public let url: URL
        public let contentType: String?
        public let data: Data
    }

    /// GETs `url` and returns its body, which must arrive within the request timeout,
    /// be at most `limit` bytes and come with a 2xx status.
    public func get(_ url: URL, limit: Int = 32 << 20) async throws(FeedError) -> Body {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        request.headers.add(name: "Accept", value: "application/json, text/javascript;q=0.9, */*;q=0.1")
        do {
            let response = try await client.execute(request, timeout: TimeAmount(settings.requestTimeout))
            guard (200..<300).contains(response.status.code) else {
                throw FeedError.httpStatus(Int(response.status.code), url: url)
            }
            let contentType = response.headers.first(name: "Content-Type")
            let buffer = try await response.body.collect(upTo: limit)
            return Body(url: url, contentType: contentType, data: Data(buffer: buffer))
        } catch let error as FeedError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .bodyTooLarge(url: url, limit: limit)
        } catch {
            throw Self.describe(error, url: url, timeout: settings.requestTimeout)
        }
    }

    /// GETs `url` and checks that the body looks like JSON; a web page, an empty body
    /// or binary data becomes ``FeedError/Code/notJSON``.
    public func getJSON(_ url: URL) async throws(FeedError) -> Body {
        let body = try await get(url)
        let first = body.data.first { !(" \t\r\n" as String).utf8.contains($0) }
        let typeSaysHTML = body.contentType?.lowercased().contains("html") ?? false
        guard !typeSaysHTML, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            throw .notJSON(url: url, contentType: body.contentType, byteCount: body.data.count)
        }
        return body
    }

    /// GETs JSON and decodes it as `T`; a decoding failure names the URL and the
    /// key path (or, for bad syntax, the body's size).
    public func decode<T: Decodable>(_ type: T.Type, from url: URL) async throws(FeedError) -> T {
        let body = try await getJSON(url)
        do {
            return try JSONDecoder().decode(T.self, from: body.data)
        } catch {
            throw FeedError(decoding: error, url: url, byteCount: body.data.count)
        }
    }

    /// Maps an AsyncHTTPClient or NIO error to a ``FeedError`` a person can act on.
    static func describe(_ error: any Error, url: URL, timeout: Duration) -> FeedError {
        let host = url.host ?? "?"
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout:
                return .timedOut(url: url, after: timeout)
            case .connectTimeout:
                return .connectionFailed(host: host, port: port, reason: "connection timed out")
            case .remoteConnectionClosed:
                return .transport(url: url, detail: "the server closed the connection")
            default:
                return .transport(url: url, detail: String(describing: error))
            }
        }
        if let error = error as? NIOConnectionError {
            if error.dnsAError != nil || error.dnsAAAAError != nil,
                error.connectionErrors.isEmpty
            {
                return .connectionFailed(host: host, port: port, reason: "unknown host")
            }
            let reasons = error.connectionErrors.map { reason(for: $0.error) }
            return .connectionFailed(host: host, port: port, reason: reasons.first ?? "no address to connect to")
        }
        if let error = error as? IOError {
            return .connectionFailed(host: host, port: port, reason: reason(for: error))
        }
        if error is SocketAddressError {
            return .connectionFailed(host: host, port: port, reason: "unknown host")
        }
        return .transport(url: url, detail: String(describing: error))
    }

    private static func reason(for error: any Error) -> String {
        guard let error = error as? IOError else { return String(describing: error) }
        switch error.errnoCode {
        case ECONNREFUSED: return "connection refused"
        case EHOSTUNREACH: return "host unreachable"
        case ENETUNREACH: return "network unreachable"
        case ETIMEDOUT: return "connection timed out"
        default: return String(cString: strerror(error.errnoCode))
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
