import AsyncHTTPClient
import Foundation
import NIOCore

/// The default transport: AsyncHTTPClient, streaming the body with backpressure.
public final class AsyncHTTPClientTransport: DownloadTransport {
    public let name = "ahc"
    private let client: HTTPClient
    private let userAgent: String

    /// - Parameter idleTimeout: how long the body may stall before the attempt fails
    ///   (and is retried from the bytes on disk).
    public init(
        userAgent: String = "feedsh",
        connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(30)
    ) {
        self.userAgent = userAgent
        var configuration = HTTPClient.Configuration(
            timeout: .init(
                connect: .nanoseconds(connectTimeout.nanoseconds),
                read: .nanoseconds(idleTimeout.nanoseconds)
            )
        )
        configuration.httpVersion = .http1Only
        configuration.decompression = .disabled
        // The engine retries with its own backoff; fail fast here.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.headers.add(name: "User-Agent", value: userAgent)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        // No overall deadline: a long download is fine as long as bytes keep coming
        // (the read timeout catches a stall).
        let response = try await client.execute(outgoing, timeout: .hours(24 * 365))
        var headers: [String: String] = [:]
        for header in response.headers {
            headers[header.name.lowercased()] = header.value
        }
        return TransportResponse(status: Int(response.status.code), headers: headers, body: response.body)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
