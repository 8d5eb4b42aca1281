import Foundation
import NIOHTTP1

/// HTTP dates (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), for
/// `Last-Modified`, `If-Modified-Since` and `Retry-After`.
public enum HTTPDate {
    /// The date as an IMF-fixdate, from its UTC fields (gmtime): no
    /// DateFormatter, whose ICU set-up took 40 % of `serve`'s time answering a
    /// poll with 304.
    public static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return Self.weekdays[Int(fields.tm_wday)] + ", " + padded(fields.tm_mday, 2) + " "
            + Self.months[Int(fields.tm_mon)] + " " + padded(fields.tm_year + 1900, 4) + " "
            + padded(fields.tm_hour, 2) + ":" + padded(fields.tm_min, 2) + ":" + padded(fields.tm_sec, 2) + " GMT"
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func parse(_ text: String) -> Date? {
        formatter().date(from: text.trimmingCharacters(in: .whitespaces))
    }

    // DateFormatter is not Sendable: one a call keeps this free of shared state.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}

/// Reason phrases for statuses, from NIOHTTP1.
public enum HTTPStatusPhrase {
    /// ` Not Found` for 404 (with its leading space), nothing for a status NIO does
    /// not name.
    public static func suffix(_ status: Int) -> String {
        let phrase = HTTPResponseStatus(statusCode: status).reasonPhrase
        return phrase.isEmpty || phrase.hasPrefix("UNKNOWN") ? "" : " " + phrase
    }
}
