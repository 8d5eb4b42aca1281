import Foundation
import HTTPSupport
import WebBasics

/// Why a download stopped for good (retryable trouble is retried first).
///
/// A struct over a private enum, like AsyncHTTPClient's `HTTPClientError`: match on
/// ``code`` and the typed properties, show ``description`` to a person.
public struct DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case httpStatus(Int, URL)
        case notMedia(contentType: String, URL)
        case wrongType(contentType: String, expected: String, URL)
        case encoded(encoding: String, URL)
        case network(NetworkFailure)
        case disk(operation: String, path: String, errno: Int32)
        case gaveUp(attempts: Int, last: RetryReason)
        case lengthMismatch(expected: Int64, received: Int64)
        case tooLarge(limit: Int64, URL)
        case emptyBody(URL)
        case truncated(received: Int64, declared: Int64, URL)
        case locked(path: String, pid: Int32?)
        case unsafePath(path: String)
        case reported(code: String, message: String)
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// A status the engine does not retry (4xx other than 408 and 429, 3xx that
    /// were not followed).
    public static func httpStatus(_ status: Int, url: URL) -> DownloadError { .init(.httpStatus(status, url)) }
    /// The server sent a web page (a captive portal, an error page) instead of media.
    public static func notMedia(contentType: String, url: URL) -> DownloadError {
        .init(.notMedia(contentType: contentType, url))
    }
    /// The body's type is not the one the request requires (`image/`, say).
    public static func wrongType(_ contentType: String, expected: String, url: URL) -> DownloadError {
        .init(.wrongType(contentType: contentType, expected: expected, url))
    }
    /// The server compressed the media although `identity` was asked for: those bytes
    /// are not the file.
    public static func encoded(_ encoding: String, url: URL) -> DownloadError {
        .init(.encoded(encoding: encoding, url))
    }
    /// A network failure that retrying will not mend (refused, TLS, redirects).
    public static func network(_ failure: NetworkFailure) -> DownloadError { .init(.network(failure)) }
    /// A file operation failed; what is on disk is kept for a later resume.
    public static func disk(_ operation: String, path: String, errno: Int32) -> DownloadError {
        .init(.disk(operation: operation, path: path, errno: errno))
    }
    /// Every retry failed; `last` says why the last one did.
    public static func gaveUp(attempts: Int, last: RetryReason) -> DownloadError {
        .init(.gaveUp(attempts: attempts, last: last))
    }
    /// The finished file is not the length the server promised.
    public static func lengthMismatch(expected: Int64, received: Int64) -> DownloadError {
        .init(.lengthMismatch(expected: expected, received: received))
    }
    /// The file grew (or was announced) past the size limit; nothing is kept.
    public static func tooLarge(limit: Int64, url: URL) -> DownloadError { .init(.tooLarge(limit: limit, url)) }
    /// The server sent no bytes: an empty file is never a finished download.
    public static func emptyBody(url: URL) -> DownloadError { .init(.emptyBody(url)) }
    /// A body without a length ended far short of the length the feed declared,
    /// from a server that cannot say whether more follows; the `.part` is kept.
    public static func truncated(received: Int64, declared: Int64, url: URL) -> DownloadError {
        .init(.truncated(received: received, declared: declared, url))
    }
    /// Another process owns this download (its pid when it could be learnt).
    public static func locked(path: String, pid: Int32?) -> DownloadError { .init(.locked(path: path, pid: pid)) }
    /// A symbolic link (or another non-file) stands where a download file goes.
    public static func unsafePath(_ path: String) -> DownloadError { .init(.unsafePath(path: path)) }

    /// A failure the feedsh holding the download (the background one) reported
    /// over the control socket: its code and words, as they crossed the process
    /// boundary, so that `--json` keeps the code.
    public static func reported(code: String, message: String) -> DownloadError {
        .init(.reported(code: code, message: message))
    }

    /// A stable name for a kind of failure (for `--json` and for tests), like
    /// ``FeedKit/FeedError/Code``.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        public static let httpStatus = Code("http-status")
        public static let notMedia = Code("not-media")
        public static let wrongType = Code("wrong-type")
        public static let encoded = Code("encoded-body")
        public static let network = Code("network")
        public static let disk = Code("disk")
        public static let gaveUp = Code("gave-up")
        public static let lengthMismatch = Code("length-mismatch")
        public static let tooLarge = Code("too-large")
        public static let emptyBody = Code("empty-body")
        public static let truncated = Code("truncated")
        public static let locked = Code("locked")
        public static let unsafePath = Code("unsafe-path")

        /// The code another process reported (the background feedsh's failures).
        public static func reported(_ name: String) -> Code { Code(name) }
    }

    /// The kind of failure.
    public var code: Code {
        switch kind {
        case .httpStatus: .httpStatus
        case .notMedia: .notMedia
        case .wrongType: .wrongType
        case .encoded: .encoded
        case .network: .network
        case .disk: .disk
        case .gaveUp: .gaveUp
        case .lengthMismatch: .lengthMismatch
        case .tooLarge: .tooLarge
        case .emptyBody: .emptyBody
        case .truncated: .truncated
        case .locked: .locked
        case .unsafePath: .unsafePath
        case .reported(let code, _): .reported(code)
        }
    }

    public var status: Int? {
        if case .httpStatus(let status, _) = kind { return status }
        return nil
    }

    /// For ``locked(path:pid:)``: the process that holds the download.
    public var lockHolder: Int32? {
        if case .locked(_, let pid) = kind { return pid }
        return nil
    }

    /// Whether another process holds the download.
    public var isLocked: Bool {
        if case .locked = kind { return true }
        return false
    }

    public var description: String {
        switch kind {
        case .httpStatus(let status, let url):
            "HTTP \(status)\(HTTPStatusPhrase.suffix(status)) from \(url.redacted)"
        case .notMedia(let contentType, let url):
            "\(url.redacted) sent \(contentType), not media"
        case .wrongType(let contentType, let expected, let url):
            "\(url.redacted) sent \(contentType), not \(expected == "image/" ? "an image" : expected)"
        case .encoded(let encoding, let url):
            "\(url.host ?? url.redacted) compressed the file (Content-Encoding: \(encoding)) although it was asked not to"
        case .network(let failure):
            failure.description
        case .disk(let operation, let path, let code):
            "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        case .gaveUp(let attempts, let last):
            "gave up after \(attempts) attempts: \(last)"
        case .lengthMismatch(let expected, let received):
            "received \(received) bytes where \(expected) were promised"
        case .tooLarge(let limit, let url):
            "\(url.redacted) is larger than \(Self.size(limit)), the most a download may be; nothing was kept"
        case .emptyBody(let url):
            "\(url.redacted) sent an empty file"
        case .truncated(let received, let declared, let url):
            "\(url.redacted) ended after \(received) of the \(declared) bytes its feed declares, "
                + "and the server cannot resume; kept as a partial file"
        case .locked(_, let pid):
            "being downloaded by feedsh (\(pid.map { "pid \($0)" } ?? "another process"))"
        case .unsafePath(let path):
            "\(path) is a symbolic link or not a regular file; refusing to write through it"
        case .reported(_, let message):
            message
        }
    }
}

extension DownloadError {
    /// A limit as it was set: `4 GiB`, `400 KiB`, else in bytes.
    fileprivate static func size(_ bytes: Int64) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes >= 1 << shift {
            if bytes % (1 << shift) == 0 { return "\(bytes >> shift) \(unit)" }
        }
        return "\(bytes) bytes"
    }
}

/// Why a transfer is tried again.
public enum RetryReason: Sendable, Equatable, CustomStringConvertible {
    /// 408, 429 or 5xx.
    case status(Int)
    case network(NetworkFailure)
    /// The body ended before the promised length.
    case shortBody(received: Int64, expected: Int64)
    /// Fewer than `bytesPerSecond` arrived a second over the low-speed window.
    case tooSlow(bytesPerSecond: Int)
    /// The bytes on disk could not be continued (counted like any other failure).
    case restarted(RestartReason)
    /// A body without a length ended here, and the server said more follows but
    /// sent none.
    case endUnconfirmed(at: Int64)

    public var description: String {
        switch self {
        case .status(let status): "HTTP \(status)\(HTTPStatusPhrase.suffix(status))"
        case .network(let failure): failure.description
        case .shortBody(let received, let expected): "the body ended after \(received) of \(expected) bytes"
        case .tooSlow(let rate): "slower than \(rate) bytes a second"
        case .restarted(let reason): reason.description
        case .endUnconfirmed(let bytes): "the server says more follows byte \(bytes) but sends none"
        }
    }
}

/// Why the bytes on disk were discarded and the download started over.
public enum RestartReason: Sendable, Equatable, CustomStringConvertible {
    /// A 206 came with another ETag or Last-Modified than the one sent in If-Range.
    case validatorChanged
    /// A 206 did not start at the byte asked for, or had no Content-Range.
    case wrongOffset(requested: Int64, received: Int64?)
    /// The file's total length is not the one recorded.
    case lengthChanged(was: Int64, now: Int64)
    /// A 200 answered a Range request: the file changed or ranges are not served.
    case rangeIgnored
    /// 416 for a range of a file that is not complete on disk.
    case rangeRefused
    /// Without validators, the overlap asked for again differs from the bytes on disk.
    case overlapMismatch

    public var description: String {
        switch self {
        case .validatorChanged: "the file changed on the server; starting over"
        case .wrongOffset(let requested, let received):
            received.map { "the server resumed at byte \($0) instead of \(requested); starting over" }
                ?? "the server's partial answer had no Content-Range; starting over"
        case .lengthChanged(let was, let now): "the file's length changed from \(was) to \(now) bytes; starting over"
        case .rangeIgnored: "the file changed or the server ignores ranges; starting over"
        case .rangeRefused: "the server refused the range; starting over"
        case .overlapMismatch: "the bytes on disk do not match the server's (no validator to check); starting over"
        }
    }
}
