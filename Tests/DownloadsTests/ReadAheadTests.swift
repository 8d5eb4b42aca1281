import NIOCore
import Synchronization
import Testing

@testable import Downloads

/// A body of `count` chunks of `size` bytes that records how far it was read and
/// whether its reader was cancelled.
final class CountingBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let count: Int
    let size: Int
    let failAfter: Int?
    let honoursCancellation: Bool
    let pulled = Atomic<Int>(0)
    let cancelled = Atomic<Bool>(false)

    init(count: Int, size: Int, failAfter: Int? = nil, honoursCancellation: Bool = true) {
        self.count = count
        self.size = size
        self.failAfter = failAfter
        self.honoursCancellation = honoursCancellation
    }

    struct BodyError: Error {}

    struct Iterator: AsyncIteratorProtocol {
        let body: CountingBody
        var index = 0

        mutating func next() async throws -> ByteBuffer? {
            if body.honoursCancellation, Task.isCancelled {
                body.cancelled.store(true, ordering: .relaxed)
                throw CancellationError()
            }
            if let failAfter = body.failAfter, index == failAfter { throw BodyError() }
            guard index < body.count else { return nil }
            defer { index += 1 }
            body.pulled.add(1, ordering: .relaxed)
            // Let the consumer run between chunks, as a network would.
            await Task.yield()
            return ByteBuffer(repeating: UInt8(truncatingIfNeeded: index), count: body.size)
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(body: self) }
}

@Suite("Read-ahead")
struct ReadAheadTests {
    @Test func everyByteArrivesInOrder() async throws {
        let body = CountingBody(count: 100, size: 1000)
        var seen: [UInt8] = []
        for try await batch in ReadAhead(body, limit: 10_000) {
            for chunk in batch { seen.append(chunk.readableBytesView.first!) }
        }
        #expect(seen == (0..<100).map { UInt8($0) })
    }

    /// While nobody takes, the producer stops once `limit` bytes are queued.
    @Test func readsAtMostTheLimitAhead() async throws {
        let body = CountingBody(count: 1000, size: 1000)
        var iterator = ReadAhead(body, limit: 10_000).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.isEmpty == false)
        let deadline = ContinuousClock.now + .seconds(5)
        var pulled = body.pulled.load(ordering: .relaxed)
        // Give the producer time to run ahead, then check it stopped at the limit.
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            let now = body.pulled.load(ordering: .relaxed)
            if now == pulled, now > 1 { break }
            pulled = now
        }
        #expect(pulled <= 1 + 10 + 1)
        let batch = try #require(try await iterator.next())
        #expect(batch.count <= 11)
    }

    @Test func anErrorComesAfterWhatArrivedBeforeIt() async throws {
        let body = CountingBody(count: 10, size: 100, failAfter: 5)
        var received = 0
        await #expect(throws: CountingBody.BodyError.self) {
            for try await batch in ReadAhead(body, limit: 1 << 20) { received += batch.count }
        }
        #expect(received == 5)
    }

    /// A consumer that stops reading (a stall, a mismatch) stops the transfer, even
    /// when the body goes on after its reader is cancelled (a transport that does
    /// not watch for it).
    @Test(arguments: [true, false])
    func lettingGoStopsTheProducer(honoursCancellation: Bool) async throws {
        let body = CountingBody(count: 1_000_000, size: 10, honoursCancellation: honoursCancellation)
        do {
            var iterator = ReadAhead(body, limit: 100).makeAsyncIterator()
            _ = try await iterator.next()
        }
        let deadline = ContinuousClock.now + .seconds(5)
        var pulled = body.pulled.load(ordering: .relaxed)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            let now = body.pulled.load(ordering: .relaxed)
            if now == pulled { break }
            pulled = now
        }
        #expect(pulled < 1_000)
    }
}
