import NIOCore
import Synchronization

/// A cap on the total rate of every download that shares it (`--limit-rate`,
/// `set rate-limit`): a token bucket that holds at most a tenth of a second of
/// bytes, so that over any second after the first no more than 1.1 times the cap
/// goes through.
///
/// Bodies are read through ``limit(_:)``, which hands on a chunk no larger than the
/// bucket and then waits as long as the bucket is in debt. The reader's waiting is
/// what slows the network: AsyncHTTPClient reads from the socket only when the body
/// is asked for more. Without a rate (the default) a chunk passes after one atomic
/// load.
public final class RateLimiter: Sendable {
    private struct Bucket {
        /// Bytes that may pass now; negative while in debt.
        var tokens: Double
        var refilled: ContinuousClock.Instant
    }

    /// Bytes a second; 0 for none.
    private let rateValue = Atomic<Int64>(0)
    private let bucket: Mutex<Bucket>
    private let clock = ContinuousClock()

    public init(bytesPerSecond: Int64? = nil) {
        bucket = Mutex(Bucket(tokens: 0, refilled: ContinuousClock.now))
        rate = bytesPerSecond
    }

    /// The cap in bytes a second, or nil for none. A change applies to running
    /// downloads at once.
    public var rate: Int64? {
        get {
            let value = rateValue.load(ordering: .relaxed)
            return value > 0 ? value : nil
        }
        set {
            rateValue.store(max(0, newValue ?? 0), ordering: .relaxed)
            bucket.withLock { $0 = Bucket(tokens: 0, refilled: clock.now) }
        }
    }

    /// The most one chunk may be under `rate`: a tenth of a second of it (at least
    /// 1 KiB, so that a tiny cap still moves).
    static func chunkLimit(rate: Int64) -> Int {
        Int(max(1024, rate / 10))
    }

    /// Takes `count` bytes from the bucket and returns how long to wait before the
    /// next ones may go (zero when there is no debt).
    func reserve(_ count: Int, rate: Int64) -> Duration {
        let now = clock.now
        return bucket.withLock { bucket in
            let elapsed = Double((now - bucket.refilled) / .nanoseconds(1)) / 1e9
            let capacity = Double(Self.chunkLimit(rate: rate))
            bucket.tokens = min(capacity, bucket.tokens + elapsed * Double(rate)) - Double(count)
            bucket.refilled = now
            guard bucket.tokens < 0 else { return .zero }
            return .nanoseconds(Int64(-bucket.tokens / Double(rate) * 1e9))
        }
    }

    /// `body` with this limiter's cap applied to every chunk read from it.
    public func limit(_ body: any AsyncSequence<ByteBuffer, any Error> & Sendable) -> LimitedBody {
        LimitedBody(base: body, limiter: self)
    }
}

/// A body read at most at its ``RateLimiter``'s rate (see ``RateLimiter/limit(_:)``).
public struct LimitedBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer
    let base: any AsyncSequence<ByteBuffer, any Error> & Sendable
    let limiter: RateLimiter

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: any AsyncIteratorProtocol<ByteBuffer, any Error>
        let limiter: RateLimiter
        /// What is left of a chunk larger than the bucket.
        var rest: ByteBuffer?

        public mutating func next() async throws -> ByteBuffer? {
            var chunk: ByteBuffer
            if let rest {
                chunk = rest
                self.rest = nil
            } else {
                guard let next = try await base.next() else { return nil }
                chunk = next
            }
            guard let rate = limiter.rate else { return chunk }
            let most = RateLimiter.chunkLimit(rate: rate)
            if chunk.readableBytes > most, let head = chunk.readSlice(length: most) {
                rest = chunk
                chunk = head
            }
            let wait = limiter.reserve(chunk.readableBytes, rate: rate)
            if wait > .zero { try await Task.sleep(for: wait) }
            return chunk
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limiter: limiter)
    }
}
