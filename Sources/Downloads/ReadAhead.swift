import NIOCore
import Synchronization

/// Reads a body ahead of its consumer, up to `limit` bytes, and hands over
/// everything that has arrived in one batch.
///
/// AsyncHTTPClient delivers a body one buffer at a time (its high watermark is one
/// buffer): the socket is read only while nobody writes to disk, and the two take
/// turns. Here a producer task keeps pulling from the transport while the consumer
/// writes the previous batch, so network and disk overlap on different threads, and
/// the consumer does its per-write bookkeeping once a batch instead of once a
/// buffer. Memory stays bounded: the producer waits while `limit` bytes are
/// queued.
///
/// Cancelling the consumer's task cancels the producer (and so the transfer).
struct ReadAhead: AsyncSequence, Sendable {
    typealias Element = [ByteBuffer]

    let base: any AsyncSequence<ByteBuffer, any Error> & Sendable
    let limit: Int

    init(_ base: any AsyncSequence<ByteBuffer, any Error> & Sendable, limit: Int) {
        self.base = base
        self.limit = Swift.max(1, limit)
    }

    func makeAsyncIterator() -> Iterator {
        let pipe = Pipe(limit: limit)
        let base = base
        let producer = Task {
            do {
                for try await chunk in base {
                    try await pipe.push(chunk)
                }
                pipe.finish(throwing: nil)
            } catch {
                pipe.finish(throwing: error)
            }
        }
        return Iterator(owner: Owner(pipe: pipe, producer: producer))
    }

    struct Iterator: AsyncIteratorProtocol {
        fileprivate let owner: Owner

        mutating func next() async throws -> [ByteBuffer]? {
            let owner = owner
            return try await withTaskCancellationHandler {
                try await owner.pipe.take()
            } onCancel: {
                owner.stop()
            }
        }
    }

    /// Stops the producer when the consumer is cancelled or lets go of the
    /// iterator (it stopped reading: a stall, a mismatch), so no transfer goes on
    /// unread.
    fileprivate final class Owner: Sendable {
        let pipe: Pipe
        let producer: Task<Void, Never>

        init(pipe: Pipe, producer: Task<Void, Never>) {
            self.pipe = pipe
            self.producer = producer
        }

        func stop() {
            producer.cancel()
            pipe.finish(throwing: CancellationError())
        }

        deinit {
            stop()
        }
    }

    /// The bounded queue between the producer and the consumer.
    fileprivate final class Pipe: Sendable {
        private struct State {
            var chunks: [ByteBuffer] = []
            var bytes = 0
            var end: Result<Void, any Error>?
            var consumer: CheckedContinuation<[ByteBuffer]?, any Error>?
            var producer: CheckedContinuation<Void, any Error>?
        }

        private let limit: Int
        private let state = Mutex(State())

        init(limit: Int) {
            self.limit = limit
        }

        /// Queues a chunk; waits while the queue is full. Throws when the consumer
        /// has gone, so that the producer stops reading.
        func push(_ chunk: ByteBuffer) async throws {
            enum Next { case proceed, wait, stop }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (consumer, batch, next): (CheckedContinuation<[ByteBuffer]?, any Error>?, [ByteBuffer], Next) =
                    state.withLock { state in
                        if case .failure = state.end { return (nil, [], .stop) }
                        state.chunks.append(chunk)
                        state.bytes += chunk.readableBytes
                        if let consumer = state.consumer {
                            state.consumer = nil
                            let batch = state.chunks
                            state.chunks = []
                            state.bytes = 0
                            return (consumer, batch, .proceed)
                        }
                        if state.bytes < limit { return (nil, [], .proceed) }
                        state.producer = continuation
                        return (nil, [], .wait)
                    }
                consumer?.resume(returning: batch)
                switch next {
                case .proceed: continuation.resume()
                case .stop: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        }

        /// Everything queued, waiting for the first chunk; nil at the end.
        func take() async throws -> [ByteBuffer]? {
            try await withCheckedThrowingContinuation { continuation in
                let (batch, end, producer):
                    ([ByteBuffer], Result<Void, any Error>?, CheckedContinuation<Void, any Error>?) =
                        state.withLock { state in
                            if !state.chunks.isEmpty {
                                let batch = state.chunks
                                state.chunks = []
                                state.bytes = 0
                                let producer = state.producer
                                state.producer = nil
                                return (batch, nil, producer)
                            }
                            if let end = state.end { return ([], end, nil) }
                            state.consumer = continuation
                            return ([], nil, nil)
                        }
                producer?.resume()
                if !batch.isEmpty {
                    continuation.resume(returning: batch)
                } else if let end {
                    switch end {
                    case .success: continuation.resume(returning: nil)
                    case .failure(let error): continuation.resume(throwing: error)
                    }
                }
            }
        }

        /// Ends the stream: after what is queued, the consumer gets the end (or the
        /// error). A waiting producer is released with the error.
        func finish(throwing error: (any Error)?) {
            let (consumer, producer):
                (CheckedContinuation<[ByteBuffer]?, any Error>?, CheckedContinuation<Void, any Error>?) =
                    state.withLock { state in
                        guard state.end == nil else { return (nil, nil) }
                        state.end = error.map { .failure($0) } ?? .success(())
                        let consumer = state.consumer
                        state.consumer = nil
                        let producer = state.producer
                        state.producer = nil
                        return (consumer, producer)
                    }
            if let consumer {
                if let error { consumer.resume(throwing: error) } else { consumer.resume(returning: nil) }
            }
            producer?.resume(throwing: error ?? CancellationError())
        }
    }
}
