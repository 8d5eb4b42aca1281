import Foundation
import HTTPSupport

/// Decides when a transfer has been below the low-speed limit for the low-speed
/// time: the bytes of a window must reach limit × time, or the window ends in a
/// stall.
struct LowSpeedDetector {
    let limit: Int64
    let window: Duration
    private var windowStart: ContinuousClock.Instant
    private var windowBytes: Int64

    init(limit: Int64, window: Duration, bytes: Int64, at start: ContinuousClock.Instant) {
        self.limit = limit
        self.window = window
        windowStart = start
        windowBytes = bytes
    }

    /// Records that `bytes` have arrived in all by `now`; true when the window
    /// passed without enough of them.
    mutating func isStalled(bytes: Int64, at now: ContinuousClock.Instant) -> Bool {
        guard limit > 0 else { return false }
        let needed = Int64(Double(limit) * window.seconds)
        if bytes - windowBytes >= needed {
            windowStart = now
            windowBytes = bytes
            return false
        }
        return now - windowStart >= window
    }
}
