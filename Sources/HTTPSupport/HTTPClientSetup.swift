import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// The one AsyncHTTPClient configuration feedsh uses, for the API clients and the
/// download engine alike (they share one pool of clients).
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
    ///   - proxy: the proxy every request of this client goes through.
    public static func makeClient(
        connectTimeout: Duration,
        readTimeout: Duration,
        followRedirects: Bool = true,
        decompressUpTo limit: Int? = nil,
        proxy: ProxyServer? = nil
    ) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: followRedirects ? .follow(max: 5, allowCycles: false) : .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout), read: TimeAmount(readTimeout))
        )
        configuration.httpVersion = .http1Only
        configuration.decompression = limit.map { .enabled(limit: .size($0)) } ?? .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        if let proxy {
            switch proxy.kind {
            case .http:
                let authorization = proxy.user.map {
                    HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "")
                }
                configuration.proxy = .server(host: proxy.host, port: proxy.port, authorization: authorization)
            case .socks5:
                configuration.proxy = .socksServer(host: proxy.host, port: proxy.port)
            }
        }
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}

/// AsyncHTTPClient clients by proxy. A client's configuration holds one proxy, so
/// a request goes to the client for the proxy that ``ProxyEnvironment`` picks for
/// its URL: the direct one, or one per proxy, made when first needed.
///
/// A redirect that AsyncHTTPClient follows stays with the first URL's client (and
/// proxy); the feed client follows redirects itself and picks again for each hop.
public final class HTTPClientPool: Sendable {
    public let proxies: ProxyEnvironment
    /// Whether its clients follow redirects themselves.
    public let followsRedirects: Bool
    /// A client with the pool's options, through a proxy or direct (nil).
    private let make: @Sendable (ProxyServer?) -> HTTPClient
    /// By proxy (nil is the direct client), each made at its first request, and
    /// whether ``shutdown()`` ran. A start that sends nothing (`help`, `podcasts`,
    /// an idle prompt) makes no client, and so starts no event loop threads. After
    /// shutdown a late request gets a client that is shut down already (one never
    /// shut down would trap in AsyncHTTPClient's deinit), and fails as such.
    private let state: Mutex<(clients: [ProxyServer?: HTTPClient], closed: Bool)>

    /// A pool whose clients are made by ``HTTPClientSetup/makeClient(connectTimeout:readTimeout:followRedirects:decompressUpTo:proxy:)``
    /// with these options.
    public init(
        connectTimeout: Duration,
        readTimeout: Duration,
        followRedirects: Bool = true,
        decompressUpTo limit: Int? = nil,
        proxies: ProxyEnvironment = .direct
    ) {
        self.proxies = proxies
        followsRedirects = followRedirects
        make = { proxy in
            HTTPClientSetup.makeClient(
                connectTimeout: connectTimeout,
                readTimeout: readTimeout,
                followRedirects: followRedirects,
                decompressUpTo: limit,
                proxy: proxy
            )
        }
        state = Mutex(([:], false))
    }

    /// The client for a request to `url`.
    public func client(for url: URL) -> HTTPClient {
        let proxy = proxies.proxy(for: url)
        return state.withLock { state in
            if let client = state.clients[proxy] { return client }
            if state.closed, let any = state.clients.values.first { return any }
            let client = make(proxy)
            if state.closed {
                // No thread of the client's event loops waits on this one.
                try? client.syncShutdown()
            }
            state.clients[proxy] = client
            return client
        }
    }

    /// How many clients have been made (each with its event loop threads): a
    /// start, or a `serve` answering feeds, makes none.
    public var clientsMade: Int { state.withLock { $0.clients.count } }

    /// The failure of a request to `url`, naming the proxy when it was the proxy
    /// that could not be reached or refused.
    public func failure(_ error: any Error, url: URL) -> NetworkFailure {
        NetworkFailure(error, url: url, proxy: proxies.proxy(for: url))
    }

    /// Shuts every client down.
    public func shutdown() async throws {
        let all = state.withLock { state in
            defer { state.closed = true }
            return state.closed ? [] : Array(state.clients.values)
        }
        for client in all { try await client.shutdown() }
    }
}
