import Foundation

/// A coding path written the way people read JSON: `results[3].releaseDate`.
public func jsonPath(_ codingPath: [any CodingKey]) -> String {
    var path = ""
    for key in codingPath {
        if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)" {
            path += "[\(index)]"
        } else {
            path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
    }
    return path.isEmpty ? "(top level)" : path
}

/// Where a `DecodingError` happened and what it says, in words.
struct DecodingFailure: Sendable, Equatable {
    let keyPath: String
    let detail: String
    /// The same for a person: `its trackId is text, not a number`.
    let reason: String

    init(_ error: DecodingError) {
        switch error {
        case .typeMismatch(let type, let context):
            keyPath = jsonPath(context.codingPath)
            detail = Self.sentence(context.debugDescription, fallback: "expected \(Self.name(of: type))")
            let found = Self.found(in: context.debugDescription).map { " is \($0)," } ?? " is"
            reason = "its \(Self.field(context.codingPath))\(found) not \(Self.name(of: type))"
        case .valueNotFound(let type, let context):
            keyPath = jsonPath(context.codingPath)
            detail = "expected \(Self.name(of: type)), found null"
            reason = "its \(Self.field(context.codingPath)) is empty (null)"
        case .keyNotFound(let key, let context):
            keyPath = jsonPath(context.codingPath + [key])
            detail = "missing key '\(key.stringValue)'"
            reason = "it has no \(key.stringValue)"
        case .dataCorrupted(let context):
            keyPath = jsonPath(context.codingPath)
            detail = Self.sentence(context.debugDescription, fallback: "invalid value")
            reason = "its \(Self.field(context.codingPath)) is not valid (\(detail))"
        @unknown default:
            keyPath = "(unknown)"
            detail = String(describing: error)
            reason = detail
        }
    }

    /// The field a coding path ends in: `trackId`.
    private static func field(_ path: [any CodingKey]) -> String {
        path.last { $0.intValue == nil }?.stringValue ?? "value"
    }

    /// What Foundation says it found ("but found a string instead"), in plain words.
    private static func found(in text: String) -> String? {
        guard let range = text.range(of: "but found "),
            let end = text.range(of: " instead", range: range.upperBound..<text.endIndex)
        else { return nil }
        let what = String(text[range.upperBound..<end.lowerBound])
        return switch what {
        case "a string", "a String": "text"
        case "a number", "a Number": "a number"
        case "a dictionary", "a Dictionary", "a keyed container": "an object"
        case "an array", "an Array", "an unkeyed container": "a list"
        case "null", "a null value": "empty (null)"
        default: what
        }
    }

    /// Foundation's "Expected to decode Int64 but found a string instead." as a
    /// clause: lower-case start, no final period.
    private static func sentence(_ text: String, fallback: String) -> String {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first else { return fallback }
        let second = text.dropFirst().first
        // Keep "URL ..." or "JSON ..." as they are.
        if second?.isLowercase ?? true { text = first.lowercased() + text.dropFirst() }
        return text
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int64.Type, is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "a boolean"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}

/// A result the decoder skipped, with the reason: reported to the user as a warning.
public struct DecodingWarning: Sendable, Hashable, CustomStringConvertible {
    /// The skipped element, such as `results[4]`.
    public let element: String
    /// The key path that failed, such as `results[4].trackId`.
    public let keyPath: String
    /// What the decoder said, for programs (`--json`).
    public let detail: String
    /// What was skipped, for a person: `episode 4`.
    public let subject: String
    /// Why, for a person: `its trackId is text, not a number`.
    public let reason: String

    public init(element: String, keyPath: String, detail: String, subject: String, reason: String) {
        self.element = element
        self.keyPath = keyPath
        self.detail = detail
        self.subject = subject
        self.reason = reason
    }

    /// `skipped episode 4: its trackId is text, not a number`.
    public var description: String { "skipped \(subject): \(reason)" }
}

/// Decodes `T` but never fails, so that one bad element of an array does not lose
/// the others (and the unkeyed container still advances past it).
struct Lenient<T: Decodable>: Decodable {
    let result: Result<T, any Error>

    init(from decoder: any Decoder) throws {
        do {
            result = .success(try T(from: decoder))
        } catch {
            result = .failure(error)
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes an ISO 8601 date such as `2023-02-16T16:00:17Z` (fractional seconds
    /// allowed), failing with a precise path when the text is not a date.
    func decodeISO8601IfPresent(forKey key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        if let date = ISO8601.parse(text) { return date }
        throw DecodingError.dataCorruptedError(
            forKey: key,
            in: self,
            debugDescription: "'\(text)' is not an ISO 8601 date"
        )
    }

    /// Decodes a URL string; an empty string counts as absent.
    func decodeURLIfPresent(forKey key: Key) throws -> URL? {
        guard let text = try decodeIfPresent(String.self, forKey: key), !text.isEmpty else { return nil }
        guard let url = URL(string: text), url.scheme != nil else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "'\(text)' is not a URL")
        }
        return url
    }

    func decodeURL(forKey key: Key) throws -> URL {
        guard let url = try decodeURLIfPresent(forKey: key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(codingPath: codingPath, debugDescription: "missing URL")
            )
        }
        return url
    }
}

/// ISO 8601 timestamps as the APIs write them.
public enum ISO8601 {
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension Duration {
    /// The longest running time taken at its word: a week (live streams of a day
    /// exist; longer is a mistake or a lie).
    public static let longestPlausible: Duration = .seconds(7 * 86_400)

    /// A running time from a network number of milliseconds, or nil ("unknown") when
    /// it is not finite, not positive or beyond ``longestPlausible``: converting
    /// `1e300` to an integer would trap.
    public static func plausible(milliseconds: Double) -> Duration? {
        guard milliseconds.isFinite, milliseconds > 0,
            milliseconds <= Double(longestPlausible.components.seconds) * 1000
        else { return nil }
        return .milliseconds(Int64(milliseconds))
    }
}
