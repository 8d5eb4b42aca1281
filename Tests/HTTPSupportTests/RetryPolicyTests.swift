import HTTPSupport
import Testing

/// The one retry policy feeds and downloads share.
@Suite("Retry policy")
struct RetryPolicyTests {
    /// A feed's: backoff doubles up to 5 s; a server's Retry-After is honoured up to
    /// 30 s, in seconds or as an HTTP date.
    @Test func feedsBackOffToFiveSecondsAndHonourRetryAfterToThirty() {
        var policy = RetryPolicy.feeds
        policy.random = { 1 }
        #expect(policy.attempts == 3)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil) == .milliseconds(500))
        #expect(policy.delay(afterAttempt: 2, retryAfter: nil) == .seconds(1))
        #expect(policy.delay(afterAttempt: 9, retryAfter: nil) == .seconds(5))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(12)) == .seconds(12))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(600)) == .seconds(30))
        #expect(policy.retryAfter("7") == .seconds(7))
        #expect(policy.retryAfter("later") == nil)
    }

    /// Jitter is "equal": half the wait fixed, half random.
    @Test func jitterIsHalfTheWait() {
        var policy = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(60))
        policy.random = { 0 }
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil) == .seconds(4))
        policy.random = { 1 }
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil) == .seconds(8))
        // A download's Retry-After limit is its longest backoff.
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(90)) == .seconds(60))
    }
}
