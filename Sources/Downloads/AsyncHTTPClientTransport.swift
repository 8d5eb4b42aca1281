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
    private let client: HTTPClient
    private let ownsClient: Bool
    private let userAgent: String

    /// A transport with a client of its own.
    ///
    /// - Parameter idleTimeout: how long the body may stall before the attempt fails
    ///   (and is retried from the bytes on disk).
    public convenience init(
        userAgent: String = "feedsh",
        connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(30)
    ) {
        self.init(
            client: HTTPClientSetup.makeClient(connectTimeout: connectTimeout, readTimeout: idleTimeout),
            userAgent: userAgent,
            ownsClient: true
        )
    }

    /// A transport over a shared client (made by ``HTTPClientSetup``); its owner
    /// shuts it down unless `ownsClient`.
    public init(client: HTTPClient, userAgent: String, ownsClient: Bool = false) {
        self.client = client
        self.userAgent = userAgent
        self.ownsClient = ownsClient
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
            response = try await client.execute(outgoing, timeout: .hours(24 * 365))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw NetworkFailure(error, url: request.url)
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
        if ownsClient { try? await client.shutdown() }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
