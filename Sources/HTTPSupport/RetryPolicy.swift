import Foundation

/// When to try a failed request again, for feeds and downloads alike: exponential
/// backoff with jitter, honouring `Retry-After`; and, for downloads, when a
/// transfer is too slow (a low-speed limit like curl's `--speed-limit`/
/// `--speed-time`).
///
/// The random source and the clock are injected, so that tests can pin the jitter
/// and the date a `Retry-After: <HTTP date>` is measured from.
public struct RetryPolicy: Sendable {
    /// Tries in all, the first included.
    public var attempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// The longest `Retry-After` waited for (longer ones are cut to this).
    public var retryAfterLimit: Duration
    /// A transfer slower than this many bytes a second ...
    public var lowSpeedLimit: Int64
    /// ... for this long is a stall: it is retried from the bytes on disk.
    public var lowSpeedTime: Duration
    /// A number in 0...1 for the jitter.
    public var random: @Sendable () -> Double
    /// The current date, for `Retry-After` dates.
    public var now: @Sendable () -> Date

    public init(
        attempts: Int = 5,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        retryAfterLimit: Duration? = nil,
        lowSpeedLimit: Int64 = 1024,
        lowSpeedTime: Duration = .seconds(30),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.attempts = attempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.retryAfterLimit = retryAfterLimit ?? maxDelay
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        self.random = random
        self.now = now
    }

    /// A feed's: three tries, 0.5 s doubling to at most 5 s, a server's
    /// `Retry-After` up to 30 s.
    public static let feeds = RetryPolicy(
        attempts: 3,
        baseDelay: .milliseconds(500),
        maxDelay: .seconds(5),
        retryAfterLimit: .seconds(30)
    )

    /// The wait before try `attempt + 1` (attempt counts from 1): the server's
    /// `Retry-After` when given (at most ``retryAfterLimit``), else base ×
    /// 2^(attempt-1) with "equal jitter" (half fixed, half random), never above
    /// `maxDelay`.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(retryAfter, retryAfterLimit) }
        let exponential = baseDelay * (1 << min(max(attempt, 1) - 1, 20))
        let capped = min(exponential, maxDelay)
        let half = capped / 2
        return half + half * min(1, max(0, random()))
    }

    /// `Retry-After` as seconds or an HTTP date (measured from ``now``); nil when
    /// absent or unreadable.
    public func retryAfter(_ value: String?) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int64(value) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        let seconds = date.timeIntervalSince(now())
        return seconds > 0 ? .milliseconds(Int64(min(seconds, 86_400) * 1000)) : .zero
    }
}
