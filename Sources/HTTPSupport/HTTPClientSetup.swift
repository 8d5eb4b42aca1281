import AsyncHTTPClient
import NIOCore

/// The one AsyncHTTPClient configuration feedsh uses, for the API clients and the
/// download engine alike (they share one client, one connection pool).
public enum HTTPClientSetup {
    /// HTTP/1.1 (one connection a transfer, as curl does), bodies passed through as
    /// sent (the engine asks for `identity` and refuses encoded media), redirects
    /// followed up to 5 without cycles, and no retries of refused connections: the
    /// callers retry on their own terms.
    ///
    /// - Parameters:
    ///   - connectTimeout: how long to wait for a TCP connection.
    ///   - readTimeout: how long the response may stall between bytes.
    ///   - followRedirects: false for a caller that follows them itself, to see
    ///     whether a move is permanent (feeds).
    ///   - decompressUpTo: decode gzip and deflate bodies up to this many bytes
    ///     (feeds); nil passes bodies through as sent.
    public static func makeClient(
        connectTimeout: Duration,
        readTimeout: Duration,
        followRedirects: Bool = true,
        decompressUpTo limit: Int? = nil
    ) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: followRedirects ? .follow(max: 5, allowCycles: false) : .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout), read: TimeAmount(readTimeout))
        )
        configuration.httpVersion = .http1Only
        configuration.decompression = limit.map { .enabled(limit: .size($0)) } ?? .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
