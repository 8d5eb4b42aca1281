import Foundation
import PlainText

/// How durations, dates, byte counts, rates and percentages are shown.
public enum Formatting {
    /// `1 episode`, `3 episodes`: `noun` with an `s` unless there is one
    /// (`plural` where English wants another word).
    public static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }

    /// Durations beyond this read `?`: no episode lasts a week, so it is a bad value.
    public static let longestDuration: Duration = .seconds(7 * 86_400)

    /// `1:02:03` from an hour on, `4:05` below it.
    /// A negative duration or one beyond ``longestDuration`` reads `?`.
    public static func duration(_ duration: Duration) -> String {
        guard duration >= .zero, duration <= longestDuration else { return "?" }
        let total = Int(duration.components.seconds)
        let (hours, minutes, seconds) = (total / 3600, total % 3600 / 60, total % 60)
        // Written in place into a small string (at most `168:00:00`): interpolated
        // pieces took a thousand instructions a duration, in tables of thousands.
        return String(unsafeUninitializedCapacity: 9) { text in
            var count = 0
            func put(_ value: Int, digits minimum: Int) {
                var digits = 1
                var rest = value / 10
                while rest > 0 {
                    digits += 1
                    rest /= 10
                }
                rest = value
                for position in (count..<count + max(digits, minimum)).reversed() {
                    text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                count += max(digits, minimum)
            }
            if hours > 0 {
                put(hours, digits: 1)
                text[count] = UInt8(ascii: ":")
                count += 1
                put(minutes, digits: 2)
            } else {
                put(minutes, digits: 1)
            }
            text[count] = UInt8(ascii: ":")
            count += 1
            put(seconds, digits: 2)
            return count
        }
    }

    /// `2026-11-02`, in the local time zone (`TZ`); `?` outside the years 1 to 9999.
    ///
    /// The zone's offset at that moment, then gmtime's fields: a `Calendar` and
    /// `String(format:)` for each date took a tenth of a table of 10,000 episodes.
    public static func date(_ date: Date, timeZone: TimeZone = .current) -> String {
        let seconds = date.timeIntervalSince1970
        // 0001-01-02 to 9999-12-30 in UTC: a day of margin for any zone's offset.
        guard seconds.isFinite, (-62_135_510_400.0..<253_402_128_000.0).contains(seconds) else { return "?" }
        var time = time_t(seconds.rounded(.down)) + time_t(timeZone.secondsFromGMT(for: date))
        var fields = tm()
        guard gmtime_r(&time, &fields) != nil else { return "?" }
        // Ten bytes written in place (a small string, no allocation): padded pieces
        // joined took some three thousand instructions a date.
        return String(unsafeUninitializedCapacity: 10) { text in
            func put(_ value: Int32, _ digits: Int, at start: Int) {
                var rest = Int(value)
                for position in (start..<start + digits).reversed() {
                    text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(fields.tm_year + 1900, 4, at: 0)
            text[4] = UInt8(ascii: "-")
            put(fields.tm_mon + 1, 2, at: 5)
            text[7] = UInt8(ascii: "-")
            put(fields.tm_mday, 2, at: 8)
            return 10
        }
    }

    /// `41%` of `total`, or the byte count when the total is unknown.
    public static func percent(_ bytes: Int64, of total: Int64?) -> String {
        guard let total, total > 0 else { return ByteCountText.format(Int(bytes)) }
        return String(format: "%.0f%%", Double(bytes) / Double(total) * 100)
    }

    /// `41.2%` of `total`, or the byte count when the total is unknown.
    public static func precisePercent(_ bytes: Int64, of total: Int64?) -> String {
        guard let total, total > 0 else { return ByteCountText.format(Int(bytes)) }
        return String(format: "%.1f%%", Double(bytes) / Double(total) * 100)
    }

    /// `3.2 MB/s`; nil (not yet measured) reads `…/s`.
    public static func rate(_ bytesPerSecond: Double?) -> String {
        guard let bytesPerSecond else { return "…/s" }
        return ByteCountText.format(bytesPerSecond) + "/s"
    }
}
