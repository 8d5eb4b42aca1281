import Foundation
import NIOCore

/// A request for (part of) a file.
public struct TransportRequest: Sendable {
    public var url: URL
    /// Extra headers such as `Range` and `If-Range`.
    public var headers: [(name: String, value: String)]

    public init(url: URL, headers: [(name: String, value: String)] = []) {
        self.url = url
        self.headers = headers
    }
}

/// A response head and its body, which arrives in chunks with backpressure: the
/// transport reads from the network no faster than the consumer takes chunks.
public struct TransportResponse: Sendable {
    public let status: Int
    /// Header values by lower-cased name.
    public let headers: [String: String]
    public let body: any AsyncSequence<ByteBuffer, any Error> & Sendable
    /// Where the response came from after redirects, when the transport knows.
    public let url: URL?

    public init(
        status: Int,
        headers: [String: String],
        body: any AsyncSequence<ByteBuffer, any Error> & Sendable,
        url: URL? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// Something that performs HTTP GETs for the download engine. Cancelling the task
/// that iterates a body cancels the transfer.
public protocol DownloadTransport: Sendable {
    /// `ahc` or `urlsession`, as `--engine` names them.
    var name: String { get }
    func send(_ request: TransportRequest) async throws -> TransportResponse
    func shutdown() async
}
