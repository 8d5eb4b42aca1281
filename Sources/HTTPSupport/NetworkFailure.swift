import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Why an HTTP exchange failed below the HTTP level, with the host it was with.
///
/// The one mapping of AsyncHTTPClient, NIO and socket errors for every part of
/// feedsh (the API clients and the download engine alike), so that the same refused
/// port reads the same everywhere. The URLSession transport maps `URLError` into it
/// too. Like `HTTPClientError`, a value a person can read (``description``) and a
/// program can match (``reason``).
public struct NetworkFailure: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable, Codable {
        case connectionRefused
        case unknownHost
        case unreachable
        case connectTimeout
        /// The connection closed before the exchange was complete.
        case connectionDropped
        /// No bytes arrived within the read timeout.
        case stalled
        case tls(String)
        case redirectLoop
        case tooManyRedirects
        /// A URL whose scheme is not http or https (`file`, `javascript`).
        case unsupportedScheme(String)
        /// A redirect to such a URL.
        case redirectedToUnsupportedScheme(String)
        /// The proxy answered 407: it wants credentials, or refused the ones sent.
        case proxyAuthenticationRequired
        /// The proxy would not open the tunnel (a status other than 200 to `CONNECT`).
        case proxyRefused
        /// The download engine cannot run on this machine (`--engine urlsession`
        /// without libcurl), in its own words.
        case engineUnavailable(String)
        /// Anything else, in the library's own words.
        case other(String)
    }

    public let reason: Reason
    public let host: String
    public let port: Int
    /// The failure was with a proxy (``host`` and ``port`` are the proxy's).
    public let throughProxy: Bool

    public init(_ reason: Reason, host: String, port: Int, throughProxy: Bool = false) {
        self.reason = reason
        self.host = host
        self.port = port
        self.throughProxy = throughProxy
    }

    /// The failure `reason` of a request to `url`.
    public init(_ reason: Reason, url: URL) {
        self.init(reason, host: url.host ?? "?", port: url.port ?? (url.scheme == "https" ? 443 : 80))
    }

    /// Worth trying again after a pause: the network or the server may recover. A
    /// refused connection, an unknown host, TLS and redirect trouble will not by
    /// themselves (curl's `--retry` sees them the same way).
    public var isTransient: Bool {
        switch reason {
        case .connectTimeout, .connectionDropped, .stalled, .other: true
        case .connectionRefused, .unknownHost, .unreachable, .tls, .redirectLoop, .tooManyRedirects,
            .unsupportedScheme, .redirectedToUnsupportedScheme, .proxyAuthenticationRequired, .proxyRefused,
            .engineUnavailable:
            false
        }
    }

    /// For a failure to connect, the reason alone: `connection refused`.
    public var connectionProblem: String? {
        switch reason {
        case .connectionRefused: "connection refused"
        case .unknownHost: "unknown host"
        case .unreachable: "host unreachable"
        case .connectTimeout: "connection timed out"
        default: nil
        }
    }

    public var description: String {
        let what = throughProxy ? "the proxy \(host):\(port)" : "\(host):\(port)"
        if let problem = connectionProblem { return "cannot connect to \(what): \(problem)" }
        return switch reason {
        case .proxyAuthenticationRequired:
            "the proxy \(host):\(port) wants a user name and password, or refused them (407): "
                + "give them in the proxy URL, http://USER:PASSWORD@\(host):\(port)"
        case .proxyRefused:
            "the proxy \(host):\(port) would not open a tunnel to the server: "
                + "it refused the user name and password, or does not allow that host or port"
        case .connectionDropped where throughProxy:
            "the connection to \(what) dropped (it closed it, or answered with something that is not HTTP)"
        case .connectionDropped: "the connection to \(what) dropped"
        case .stalled: "\(host):\(port) stopped sending"
        case .tls(let detail): "TLS error with \(host):\(port): \(detail)"
        case .redirectLoop: "\(host) redirects in a loop"
        case .tooManyRedirects: "too many redirects from \(host)"
        case .unsupportedScheme(let scheme): "unsupported URL scheme (\(scheme):): only http and https are fetched"
        case .redirectedToUnsupportedScheme(let scheme):
            "redirected to an unsupported URL scheme (\(scheme):) by \(host)"
        case .engineUnavailable(let detail): "the download engine cannot run: \(detail)"
        case .other(let detail): "request to \(host):\(port) failed: \(detail)"
        case .connectionRefused, .unknownHost, .unreachable, .connectTimeout: ""
        }
    }

    /// Maps an error thrown by AsyncHTTPClient, NIO or a transport for a request to
    /// `url`. A `NetworkFailure` is returned as it is.
    public init(_ error: any Error, url: URL) {
        self.init(error, url: url, proxy: nil)
    }

    /// The same for a request sent through `proxy`: a failure to reach the proxy,
    /// or one the proxy answered itself, names the proxy.
    public init(_ error: any Error, url: URL, proxy: ProxyServer?) {
        if let failure = error as? NetworkFailure {
            self = failure
            return
        }
        self.init(Self.reason(for: error), url: url, proxy: proxy)
    }

    /// The failure `reason` of a request to `url` sent through `proxy`: one of
    /// reaching the proxy, one the proxy answered itself, or a connection that
    /// dropped (the connection is the proxy's: it closed it, or answered with
    /// something that is not HTTP) names the proxy.
    public init(_ reason: Reason, url: URL, proxy: ProxyServer?) {
        switch (reason, proxy) {
        case (.connectionRefused, let proxy?), (.unknownHost, let proxy?), (.unreachable, let proxy?),
            (.connectTimeout, let proxy?), (.proxyAuthenticationRequired, let proxy?), (.proxyRefused, let proxy?),
            (.connectionDropped, let proxy?):
            self.init(reason, host: proxy.host, port: proxy.port, throughProxy: true)
        default:
            self.init(reason, url: url)
        }
    }

    /// Whether `url` is one feedsh fetches: http or https with a host.
    public static func isFetchable(_ url: URL) -> Bool {
        ["http", "https"].contains(url.scheme?.lowercased() ?? "") && !(url.host ?? "").isEmpty
    }

    /// The scheme of AsyncHTTPClient's `unsupportedScheme` error (its cases are not
    /// public; its description names it).
    private static func unsupportedScheme(_ error: HTTPClientError) -> String? {
        let text = String(describing: error)
        guard text.hasPrefix("HTTPClientError.unsupportedScheme(") else { return nil }
        return text.dropFirst("HTTPClientError.unsupportedScheme(".count).trimmingCharacters(
            in: .init(charactersIn: "\")")
        )
    }

    private static func reason(for error: any Error) -> Reason {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: return .connectTimeout
            case .readTimeout, .deadlineExceeded: return .stalled
            case .remoteConnectionClosed, .bodyLengthMismatch: return .connectionDropped
            case .redirectCycleDetected: return .redirectLoop
            case .redirectLimitReached: return .tooManyRedirects
            case .tlsHandshakeTimeout: return .tls("the handshake timed out")
            case .proxyAuthenticationRequired: return .proxyAuthenticationRequired
            case .invalidProxyResponse: return .proxyRefused
            case .httpProxyHandshakeTimeout, .socksHandshakeTimeout: return .connectTimeout
            default:
                if let scheme = unsupportedScheme(error) { return .unsupportedScheme(scheme) }
                return .other(String(describing: error))
            }
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first?.error { return reason(for: first) }
            return error.dnsAError != nil || error.dnsAAAAError != nil ? .unknownHost : .unreachable
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return .connectionRefused
            case EHOSTUNREACH, ENETUNREACH: return .unreachable
            case ETIMEDOUT: return .connectTimeout
            case ECONNRESET, EPIPE: return .connectionDropped
            default: return .other(String(cString: strerror(error.errnoCode)))
            }
        case is HTTPParserError:
            // Mostly a body cut short ("stream ended at an unexpected time").
            return .connectionDropped
        case is SocketAddressError, is SocketAddressError.UnknownHost:
            return .unknownHost
        case let error as NIOSSLError:
            return .tls(String(describing: error))
        case let error as BoringSSLError:
            return .tls(String(describing: error))
        case let error as ChannelError where error == .eof || error == .ioOnClosedChannel || error == .outputClosed:
            return .connectionDropped
        case _ where isAbandonedHandshake(typeName: String(reflecting: type(of: error))):
            return .connectionDropped
        default:
            return .other(String(describing: error))
        }
    }

    /// Whether an error of the type named `typeName` is AsyncHTTPClient's private
    /// `NoResult`: its proxy `CONNECT`, SOCKS and TLS handlers fail with it when
    /// they are removed before their handshake ended, which is the channel closing
    /// under them. Whether a closed connection reaches the handler as that or as
    /// `remoteConnectionClosed` is a race inside the library, so both read as a
    /// dropped connection. The type is local to a method, so only its reflected
    /// name (module first, type last) identifies it.
    static func isAbandonedHandshake(typeName: String) -> Bool {
        typeName.hasPrefix("AsyncHTTPClient.") && typeName.hasSuffix(".NoResult")
    }
}
