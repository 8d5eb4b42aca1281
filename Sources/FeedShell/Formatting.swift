import Foundation

/// How durations, dates and byte counts are shown.
public enum Formatting {
    /// `1:02:03` from an hour on, `4:05` below it.
    /// A negative duration or one beyond ``Duration/longestPlausible`` reads `?`.
    public static func duration(_ duration: Duration) -> String {
        guard duration >= .zero, duration <= .longestPlausible else { return "?" }
        let total = Int(duration.components.seconds)
        let (hours, minutes, seconds) = (total / 3600, total % 3600 / 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(seconds))" : "\(minutes):\(two(seconds))"
    }

    /// `2026-11-02`, in the local time zone (`TZ`).
    public static func date(_ date: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
