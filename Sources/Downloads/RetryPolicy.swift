import Foundation

/// When to try a failed transfer again: exponential backoff with jitter, honouring
/// `Retry-After`.
public struct RetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included.
    public var attempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(attempts: Int = 5, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30)) {
        self.attempts = attempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait before try `attempt + 1` (attempt counts from 1): the server's
    /// `Retry-After` when given, else base × 2^(attempt-1) with "equal jitter" (half
    /// fixed, half random), never above `maxDelay`.
    func delay(afterAttempt attempt: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(retryAfter, maxDelay) }
        let exponential = baseDelay * (1 << min(attempt - 1, 20))
        let capped = min(exponential, maxDelay)
        let half = capped / 2
        return half + half * Double.random(in: 0...1)
    }

    /// `Retry-After` as seconds or an HTTP date.
    static func parseRetryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(max(0, Int64(date.timeIntervalSince(now) * 1000)))
    }
}
