import AsyncHTTPClient
import NIOCore

/// A response body that had not arrived whole by its request's deadline.
public struct BodyDeadlineExceeded: Error, Sendable, Equatable {
    /// The time the whole request had.
    public let after: Duration
}

extension HTTPClientResponse.Body {
    /// The whole body, at most `limit` bytes, or a ``BodyDeadlineExceeded`` once
    /// `duration` has passed since `start`. AsyncHTTPClient's deadline ends when
    /// the response's head arrives and its read timeout with each byte: a server
    /// that sends a byte at a time would otherwise hold the request without end.
    /// (Too many bytes is `NIOTooManyBytesError`, as `collect(upTo:)` says it.)
    public func collect(
        upTo limit: Int,
        within duration: Duration,
        since start: ContinuousClock.Instant
    ) async throws -> ByteBuffer {
        var buffer = ByteBuffer()
        for try await chunk in self {
            guard buffer.readableBytes + chunk.readableBytes <= limit else {
                throw NIOTooManyBytesError(maxBytes: limit)
            }
            var chunk = chunk
            buffer.writeBuffer(&chunk)
            if ContinuousClock.now - start > duration { throw BodyDeadlineExceeded(after: duration) }
        }
        return buffer
    }
}
