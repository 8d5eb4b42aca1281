import AsyncHTTPClient
import Foundation
import HTTPSupport
import NIOCore

/// The default transport: AsyncHTTPClient, streaming the body with backpressure.
///
/// It can share the client (and its connection pool) of the API clients; errors
/// come out as ``NetworkFailure`` through the shared mapping.
public final class AsyncHTTPClientTransport: DownloadTransport {
    public let name = "ahc"
    private let clients: HTTPClientPool
    private let ownsClients: Bool
    private let userAgent: String

    /// A transport with a client of its own.
    ///
    /// - Parameter idleTimeout: how long the body may stall before the attempt fails
    ///   (and is retried from the bytes on disk).
    public convenience init(
        userAgent: String = "feedsh",
        connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(30),
        proxies: ProxyEnvironment = .direct
    ) {
        self.init(
            clients: HTTPClientPool(connectTimeout: connectTimeout, readTimeout: idleTimeout, proxies: proxies),
            userAgent: userAgent,
            ownsClients: true
        )
    }

    /// A transport over shared clients; their owner shuts them down unless
    /// `ownsClients`.
    public init(clients: HTTPClientPool, userAgent: String, ownsClients: Bool = false) {
        self.clients = clients
        self.userAgent = userAgent
        self.ownsClients = ownsClients
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.headers.add(name: "User-Agent", value: userAgent)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        // No overall deadline: a long download is fine as long as bytes keep coming
        // (the read timeout and the low-speed limit catch a stall).
        let response: HTTPClientResponse
        do {
            response = try await clients.client(for: request.url).execute(outgoing, timeout: .hours(24 * 365))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw clients.failure(error, url: request.url)
        }
        var headers: [String: String] = [:]
        for header in response.headers {
            headers[header.name.lowercased()] = header.value
        }
        return TransportResponse(
            status: Int(response.status.code),
            headers: headers,
            body: response.body,
            url: response.url ?? request.url
        )
    }

    public func shutdown() async {
        if ownsClients { try? await clients.shutdown() }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
