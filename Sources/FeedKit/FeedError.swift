import Foundation
import HTTPSupport
import PlainText
import WebBasics

/// An error from talking to a feed API: what went wrong and where.
///
/// Like AsyncHTTPClient's `HTTPClientError`, a struct over a private enum, so that
/// cases can be added without breaking callers. Match on ``code``; read the context
/// (``url``, ``status``, ``keyPath``) from the properties; show ``description`` to a
/// person.
public struct FeedError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Codable, so that a failure is kept as its kind and data (a podcast's last
    /// update failure in the library), and described when shown.
    private enum Kind: Sendable, Equatable, Codable {
        case httpStatus(Int, URL)
        case notJSON(URL, contentType: String?, byteCount: Int)
        case invalidJSON(URL, detail: String, byteCount: Int)
        case decoding(URL?, keyPath: String, detail: String)
        case bodyTooLarge(URL, limit: Int)
        case decompressedTooLarge(URL, limit: Int)
        case encoded(URL, encoding: String)
        case truncated(URL, received: Int, expected: Int?)
        case connectionFailed(host: String, port: Int, reason: String, proxy: Bool)
        case timedOut(URL, after: Duration)
        case transport(URL, detail: String)
        case notFound(String)
        case invalidURL(String)
        case invalidFeed(URL, detail: String)
        case invalidTranscript(URL, detail: String)
        case unauthorized(URL, detail: String, credentialsWanted: Bool)
        /// An API (the Podcast Index) refused the key it was given.
        case keyRefused(URL, detail: String)
    }

    /// A stable, machine-readable name for the kind of error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        public static let httpStatus = Code("http-status")
        public static let notJSON = Code("not-json")
        public static let invalidJSON = Code("invalid-json")
        public static let decoding = Code("decoding")
        public static let bodyTooLarge = Code("body-too-large")
        public static let decompressedTooLarge = Code("decompressed-too-large")
        public static let encoded = Code("encoded-body")
        public static let truncated = Code("truncated-body")
        public static let connectionFailed = Code("connection-failed")
        public static let timedOut = Code("timed-out")
        public static let transport = Code("transport")
        public static let notFound = Code("not-found")
        public static let invalidURL = Code("invalid-url")
        public static let invalidFeed = Code("invalid-feed")
        public static let invalidTranscript = Code("invalid-transcript")
        public static let unauthorized = Code("unauthorized")
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// The server answered with a status outside 200..<300.
    public static func httpStatus(_ status: Int, url: URL) -> FeedError { .init(.httpStatus(status, url)) }
    /// The body was not JSON (an HTML error page, for example).
    public static func notJSON(url: URL, contentType: String?, byteCount: Int) -> FeedError {
        .init(.notJSON(url, contentType: contentType, byteCount: byteCount))
    }
    /// The body claimed to be JSON but did not parse.
    public static func invalidJSON(url: URL, detail: String, byteCount: Int) -> FeedError {
        .init(.invalidJSON(url, detail: detail, byteCount: byteCount))
    }
    /// The JSON parsed but did not have the expected shape at `keyPath`.
    public static func decoding(url: URL?, keyPath: String, detail: String) -> FeedError {
        .init(.decoding(url, keyPath: keyPath, detail: detail))
    }
    /// The body was larger than a JSON answer can reasonably be.
    public static func bodyTooLarge(url: URL, limit: Int) -> FeedError { .init(.bodyTooLarge(url, limit: limit)) }
    /// A compressed body grew past `limit` bytes as it was decompressed (a gzip bomb).
    public static func decompressedTooLarge(url: URL, limit: Int) -> FeedError {
        .init(.decompressedTooLarge(url, limit: limit))
    }
    /// The body came compressed (`Content-Encoding`) although it was asked for
    /// as it is: read as it was sent, it would be garbage.
    public static func encoded(url: URL, encoding: String) -> FeedError { .init(.encoded(url, encoding: encoding)) }
    /// The body broke off after `received` bytes, of `expected` when the server
    /// said how many.
    public static func truncated(url: URL, received: Int, expected: Int?) -> FeedError {
        .init(.truncated(url, received: received, expected: expected))
    }
    /// No connection could be made (refused, unknown host, unreachable).
    public static func connectionFailed(host: String, port: Int, reason: String) -> FeedError {
        .init(.connectionFailed(host: host, port: port, reason: reason, proxy: false))
    }
    /// No connection could be made, as the shared network mapping says (to the
    /// proxy, when it was the proxy that could not be reached).
    static func connectionFailed(_ failure: NetworkFailure, problem: String) -> FeedError {
        .init(.connectionFailed(host: failure.host, port: failure.port, reason: problem, proxy: failure.throughProxy))
    }
    /// The request did not finish in time.
    public static func timedOut(url: URL, after: Duration) -> FeedError { .init(.timedOut(url, after: after)) }
    /// Any other failure of the HTTP exchange.
    public static func transport(url: URL, detail: String) -> FeedError { .init(.transport(url, detail: detail)) }
    /// The API answered, but not with the thing asked for.
    public static func notFound(_ what: String) -> FeedError { .init(.notFound(what)) }
    /// A URL that could not be built or parsed.
    public static func invalidURL(_ text: String) -> FeedError { .init(.invalidURL(text)) }
    /// The body is not an RSS or Atom feed, or its XML is broken (`detail` says
    /// where).
    public static func invalidFeed(url: URL, detail: String) -> FeedError { .init(.invalidFeed(url, detail: detail)) }
    /// A transcript (SRT, WebVTT) that does not parse; `detail` names the line.
    public static func invalidTranscript(url: URL, detail: String) -> FeedError {
        .init(.invalidTranscript(url, detail: detail))
    }

    /// The server refused the request's credentials (401, 403); `detail` says
    /// whose. `credentialsWanted`: none were sent, and the server asks for some.
    public static func unauthorized(url: URL, detail: String, credentialsWanted: Bool = false) -> FeedError {
        .init(.unauthorized(url, detail: detail, credentialsWanted: credentialsWanted))
    }

    /// An API refused the key it was given (code ``Code/unauthorized``); a front
    /// end says where the key comes from.
    public static func unauthorized(url: URL, detail: String, keyRefused: Bool) -> FeedError {
        keyRefused ? .init(.keyRefused(url, detail: detail)) : .unauthorized(url: url, detail: detail)
    }

    /// The key given to an API was refused.
    public var keyRefused: Bool {
        if case .keyRefused = kind { return true }
        return false
    }

    /// The server wants a user name and password that were not sent: a front end
    /// says how to give them.
    public var credentialsWanted: Bool {
        if case .unauthorized(_, _, true) = kind { return true }
        return false
    }

    public var code: Code {
        switch kind {
        case .httpStatus: .httpStatus
        case .notJSON: .notJSON
        case .invalidJSON: .invalidJSON
        case .decoding: .decoding
        case .bodyTooLarge: .bodyTooLarge
        case .decompressedTooLarge: .decompressedTooLarge
        case .encoded: .encoded
        case .truncated: .truncated
        case .connectionFailed: .connectionFailed
        case .timedOut: .timedOut
        case .transport: .transport
        case .notFound: .notFound
        case .invalidURL: .invalidURL
        case .invalidFeed: .invalidFeed
        case .invalidTranscript: .invalidTranscript
        case .unauthorized, .keyRefused: .unauthorized
        }
    }

    /// The URL of the request that failed, when there was one.
    public var url: URL? {
        switch kind {
        case .httpStatus(_, let url), .notJSON(let url, _, _), .invalidJSON(let url, _, _),
            .bodyTooLarge(let url, _), .decompressedTooLarge(let url, _), .encoded(let url, _),
            .truncated(let url, _, _),
            .timedOut(let url, _), .transport(let url, _), .invalidFeed(let url, _), .invalidTranscript(let url, _),
            .unauthorized(let url, _, _), .keyRefused(let url, _):
            url
        case .decoding(let url, _, _): url
        case .connectionFailed, .notFound, .invalidURL: nil
        }
    }

    /// The HTTP status, for ``Code/httpStatus``.
    public var status: Int? {
        if case .httpStatus(let status, _) = kind { return status }
        return nil
    }

    /// Where in the JSON decoding failed, such as `results[0].collectionName`.
    public var keyPath: String? {
        if case .decoding(_, let keyPath, _) = kind { return keyPath }
        return nil
    }

    public var description: String {
        switch kind {
        case .httpStatus(let status, let url):
            "HTTP \(status)\(HTTPStatusText.phrase(status)) from \(url.redacted)"
        case .notJSON(let url, let contentType, let count):
            "expected JSON from \(url.redacted), got \(contentType ?? "no content type"), \(ByteCountText.format(count))"
        case .invalidJSON(let url, let detail, let count):
            "invalid JSON from \(url.redacted) (\(ByteCountText.format(count))): \(detail)"
        case .decoding(let url, let keyPath, let detail):
            "unexpected JSON at \(keyPath)\(url.map { " from \($0.redacted)" } ?? ""): \(detail)"
        case .bodyTooLarge(let url, let limit):
            "response from \(url.redacted) is larger than \(Self.limit(limit))"
        case .decompressedTooLarge(let url, let limit):
            "response from \(url.redacted) decompresses past \(Self.limit(limit))"
        case .encoded(let url, let encoding):
            "\(url.redacted) sent its body compressed (Content-Encoding: \(SafeText.line(encoding).prefix(40))) "
                + "although it was asked for it as it is"
        case .truncated(let url, let received, let expected):
            "the body from \(url.redacted) ended after \(ByteCountText.format(received))"
                + (expected.map { " of \(ByteCountText.format($0))" } ?? " (the connection broke off)")
        case .connectionFailed(let host, let port, let reason, let proxy):
            "cannot connect to \(proxy ? "the proxy " : "")\(host):\(port): \(reason)"
        case .timedOut(let url, let after):
            "no answer from \(url.redacted) within \(Self.seconds(after))"
        case .transport(let url, let detail):
            "request to \(url.redacted) failed: \(detail)"
        case .notFound(let what):
            what
        case .invalidURL(let text):
            "not a valid URL: \(URL.redacted(text))"
        case .invalidFeed(let url, let detail):
            "\(url.redacted) is not a feed feedsh can read: \(detail)"
        case .invalidTranscript(let url, let detail):
            "the transcript at \(url.redacted) is malformed: \(detail)"
        case .unauthorized(_, let detail, _), .keyRefused(_, let detail):
            detail
        }
    }
}

extension FeedError {
    /// A limit as it was set: `64 MiB` (a whole number of mebibytes), else in bytes.
    fileprivate static func limit(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : ByteCountText.format(bytes)
    }

    fileprivate static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

/// Reason phrases for statuses: NIOHTTP1's, and a class name for statuses it does
/// not know.
enum HTTPStatusText {
    /// The reason phrase with a leading space, or nothing for an unusual status.
    static func phrase(_ status: Int) -> String {
        let known = HTTPStatusPhrase.suffix(status)
        if !known.isEmpty { return known }
        return status >= 500 ? " Server Error" : status >= 400 ? " Client Error" : ""
    }
}
