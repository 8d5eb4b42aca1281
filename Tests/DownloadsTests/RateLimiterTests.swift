import NIOCore
import Testing

@testable import Downloads

@Suite("Rate limiter")
struct RateLimiterTests {
    /// Chunks as a transport hands them over.
    private struct Chunks: AsyncSequence, Sendable {
        let sizes: [Int]

        struct AsyncIterator: AsyncIteratorProtocol {
            var sizes: [Int]
            var byte: UInt8 = 0

            mutating func next() async throws -> ByteBuffer? {
                guard !sizes.isEmpty else { return nil }
                let size = sizes.removeFirst()
                let start = byte
                byte &+= UInt8(truncatingIfNeeded: size)
                return ByteBuffer(bytes: (0..<size).map { start &+ UInt8(truncatingIfNeeded: $0) })
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sizes: sizes) }
    }

    private func read(_ body: LimitedBody) async throws -> [ByteBuffer] {
        var chunks: [ByteBuffer] = []
        for try await chunk in body { chunks.append(chunk) }
        return chunks
    }

    @Test func withoutACapChunksPassAsTheyCame() async throws {
        let limiter = RateLimiter()
        #expect(limiter.rate == nil)
        let chunks = try await read(limiter.limit(Chunks(sizes: [70_000, 3, 0, 65_536])))
        #expect(chunks.map(\.readableBytes) == [70_000, 3, 0, 65_536])
    }

    /// Under a cap no chunk is larger than a tenth of a second of it, and every
    /// byte comes through once, in order.
    @Test func underACapChunksAreSlicedToTheBucket() async throws {
        let limiter = RateLimiter(bytesPerSecond: 4 << 20)
        let most = RateLimiter.chunkLimit(rate: 4 << 20)
        #expect(most == 419_430)
        let sizes = [1 << 20, 1, 419_431]
        let chunks = try await read(limiter.limit(Chunks(sizes: sizes)))
        #expect(chunks.allSatisfy { $0.readableBytes <= most })
        #expect(chunks.map(\.readableBytes).reduce(0, +) == sizes.reduce(0, +))
        var expected: UInt8 = 0
        var inOrder = true
        for chunk in chunks {
            for byte in chunk.readableBytesView {
                inOrder = inOrder && byte == expected
                expected &+= 1
            }
        }
        #expect(inOrder)
        // A tiny cap still moves a kilobyte at a time.
        #expect(RateLimiter.chunkLimit(rate: 2048) == 1024)
    }

    /// The bucket lends a tenth of a second, then charges: what is reserved past
    /// it is owed as time, and what is owed adds up across downloads.
    @Test func debtBecomesWaitingSharedByEveryReader() {
        let limiter = RateLimiter(bytesPerSecond: 1 << 20)
        let first = limiter.reserve(512 << 10, rate: 1 << 20)
        let second = limiter.reserve(512 << 10, rate: 1 << 20)
        // Half a second owed, then about a second (less what refilled meanwhile).
        #expect(first > .milliseconds(400) && first <= .milliseconds(500))
        #expect(second > .milliseconds(900) && second <= .seconds(1))
        limiter.rate = nil
        #expect(limiter.rate == nil)
        limiter.rate = 1 << 20
        // A new rate starts with an empty bucket: no debt carried over.
        #expect(limiter.reserve(1, rate: 1 << 20) < .milliseconds(1))
    }
}
