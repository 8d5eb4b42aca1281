import Foundation
import NIOHTTP1

/// HTTP dates (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), for
/// `Last-Modified`, `If-Modified-Since` and `Retry-After`.
public enum HTTPDate {
    public static func format(_ date: Date) -> String {
        formatter().string(from: date)
    }

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
