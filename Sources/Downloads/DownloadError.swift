import Foundation

/// Why a download stopped for good (retryable trouble is retried first).
///
/// A struct over a private enum, like AsyncHTTPClient's `HTTPClientError`.
public struct DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case httpStatus(Int, URL)
        case notMedia(contentType: String, URL)
        case wrongType(contentType: String, expected: String, URL)
        case disk(operation: String, path: String, errno: Int32)
        case gaveUp(attempts: Int, lastProblem: String)
        case lengthMismatch(expected: Int64, received: Int64)
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// A status the engine does not retry (4xx other than 408 and 429).
    public static func httpStatus(_ status: Int, url: URL) -> DownloadError { .init(.httpStatus(status, url)) }
    /// The server sent a web page (a captive portal, an error page) instead of media.
    public static func notMedia(contentType: String, url: URL) -> DownloadError {
        .init(.notMedia(contentType: contentType, url))
    }
    /// The body's type is not the one the request requires (`image/`, say).
    public static func wrongType(_ contentType: String, expected: String, url: URL) -> DownloadError {
        .init(.wrongType(contentType: contentType, expected: expected, url))
    }
    /// A file operation failed; what is on disk is kept for a later resume.
    public static func disk(_ operation: String, path: String, errno: Int32) -> DownloadError {
        .init(.disk(operation: operation, path: path, errno: errno))
    }
    /// Every retry failed.
    public static func gaveUp(attempts: Int, lastProblem: String) -> DownloadError {
        .init(.gaveUp(attempts: attempts, lastProblem: lastProblem))
    }
    /// The finished file is not the length the server promised.
    public static func lengthMismatch(expected: Int64, received: Int64) -> DownloadError {
        .init(.lengthMismatch(expected: expected, received: received))
    }

    /// A stable name for the kind of failure.
    public var code: String {
        switch kind {
        case .httpStatus: "http-status"
        case .notMedia: "not-media"
        case .wrongType: "wrong-type"
        case .disk: "disk"
        case .gaveUp: "gave-up"
        case .lengthMismatch: "length-mismatch"
        }
    }

    public var status: Int? {
        if case .httpStatus(let status, _) = kind { return status }
        return nil
    }

    public var description: String {
        switch kind {
        case .httpStatus(let status, let url):
            "HTTP \(status) from \(url.absoluteString)"
        case .notMedia(let contentType, let url):
            "\(url.absoluteString) sent \(contentType), not media"
        case .wrongType(let contentType, let expected, let url):
            "\(url.absoluteString) sent \(contentType), not \(expected == "image/" ? "an image" : expected)"
        case .disk(let operation, let path, let code):
            "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        case .gaveUp(let attempts, let problem):
            "gave up after \(attempts) attempts: \(problem)"
        case .lengthMismatch(let expected, let received):
            "received \(received) bytes where \(expected) were promised"
        }
    }
}
