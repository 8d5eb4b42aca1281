import FeedKit
import Foundation

/// One episode action of the gpodder.net API v2 (and Nextcloud gPodder Sync): what
/// a device did with an episode, and when.
///
/// Episodes are named by their podcast's feed URL and their enclosure URL, and, when
/// the device knows it, their GUID. Positions are whole seconds.
public struct EpisodeAction: Sendable, Equatable {
    /// What was done. gpodder.net knows these four; others are skipped when read.
    public enum Kind: String, Sendable, CaseIterable {
        case download, delete, play, new
    }

    public var podcast: String
    public var episode: String
    public var guid: String? = nil
    public var device: String? = nil
    public var kind: Kind
    /// When it happened on the device that did it (not when it was uploaded).
    public var timestamp: Date
    /// For `play`: where playback started, stopped, and how long the episode is
    /// (nil where the device did not say, or said something impossible such as -1).
    public var started: Int? = nil
    public var position: Int? = nil
    public var total: Int? = nil

    /// An action of `kind` on an episode at `timestamp`; the GUID, the device and
    /// `play`'s numbers are set on it where they are known.
    public init(_ kind: Kind, podcast: String, episode: String, at timestamp: Date) {
        self.kind = kind
        self.podcast = podcast
        self.episode = episode
        self.timestamp = timestamp
    }

    /// The JSON object gpodder.net takes: the timestamp in UTC without a zone, as
    /// its documentation writes it, and `play`'s numbers only when known. Encoded
    /// with `JSONEncoder` (an upload of 1,000 through `JSONSerialization`'s
    /// dictionaries spent half a sync bridging them).
    public var wire: Wire {
        let numbers = kind == .play && position != nil
        return Wire(
            podcast: podcast,
            episode: episode,
            action: kind.rawValue,
            timestamp: ActionTime.format(timestamp),
            guid: guid,
            device: device,
            // `started` and `total` go together or not at all.
            started: numbers && total != nil ? started ?? 0 : nil,
            position: numbers ? position : nil,
            total: numbers ? total : nil
        )
    }

    /// An action as uploaded; nil members are left out.
    public struct Wire: Encodable, Sendable, Equatable {
        public var podcast: String
        public var episode: String
        public var action: String
        public var timestamp: String
        public var guid: String?
        public var device: String?
        public var started: Int?
        public var position: Int?
        public var total: Int?
    }
}

/// A page of episode actions as a server answered it: the actions that could be
/// read, those skipped and why, and the server's timestamp for the next `since`.
public struct ActionPage: Sendable, Equatable {
    public var actions: [EpisodeAction]
    public var skipped: [SkippedAction]
    public var timestamp: Int64

    /// Reads `{"actions": [...], "timestamp": N}`. A malformed action is skipped
    /// with its JSON path and the reason; a reply that is not such an object at all
    /// (HTML, truncated JSON) is an error naming where it went wrong.
    ///
    /// Decoded with `JSONDecoder` into scalars (a page of 1,000 through
    /// `JSONSerialization`'s bridged dictionaries took a third of a sync, and its
    /// memory grew with the page).
    public static func decode(_ data: Data, url: URL) throws(SyncError) -> ActionPage {
        let wire: WirePage
        do {
            wire = try JSONDecoder().decode(WirePage.self, from: data)
        } catch {
            // Told apart only on this rare path: not JSON at all, or not an object.
            guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
                throw .badReply(url: url, path: "$", problem: Self.looksLikeHTML(data) ? "HTML, not JSON" : "not JSON")
            }
            throw .badReply(url: url, path: "$", problem: "not an object")
        }
        guard let list = wire.actions else {
            throw .badReply(url: url, path: "$.actions", problem: "missing or not a list")
        }
        guard let timestamp = wire.timestamp?.integer else {
            throw .badReply(url: url, path: "$.timestamp", problem: "missing or not a number")
        }
        try ActionTime.checkCursor(timestamp, url: url)
        return ActionPage(actions: list.actions, skipped: list.skipped, timestamp: timestamp)
    }

    /// One action, or why it cannot be used.
    static func action(_ element: WireElement) -> Result<EpisodeAction, SkippedAction.Reason> {
        guard element.isObject else { return .failure(.notAnObject) }
        guard let podcast = element.podcast, !podcast.isEmpty else { return .failure(.missing("podcast")) }
        guard let episode = element.episode, !episode.isEmpty else { return .failure(.missing("episode")) }
        guard let name = element.action else { return .failure(.missing("action")) }
        guard let kind = EpisodeAction.Kind(rawValue: name.lowercased()) else { return .failure(.unknownKind(name)) }
        guard let timestamp = element.timestamp.flatMap({ ActionTime.parse($0.value) }),
            ActionTime.isBelievable(timestamp)
        else {
            return .failure(.badTimestamp)
        }
        var action = EpisodeAction(kind, podcast: podcast, episode: episode, at: timestamp)
        action.guid = element.guid.flatMap { $0.isEmpty ? nil : $0 }
        action.device = element.device
        if kind == .play {
            let seconds = { (value: Scalar?) in value?.integer.flatMap { $0 >= 0 ? Int($0) : nil } }
            action.total = seconds(element.total).flatMap { $0 > 0 ? $0 : nil }
            action.started = seconds(element.started)
            // Beyond the end means the end: the device played it through.
            action.position = seconds(element.position).map { position in
                action.total.map { min(position, $0) } ?? position
            }
        }
        return .success(action)
    }

    /// A reply's top level; a member of the wrong type reads as missing.
    struct WirePage: Decodable {
        let actions: WireList?
        let timestamp: Scalar?

        enum CodingKeys: String, CodingKey { case actions, timestamp }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            actions = try? container.decode(WireList.self, forKey: .actions)
            timestamp = Scalar.read(container, .timestamp, numberFirst: true)
        }
    }

    /// `actions`, each element made an action (or a skip) as it is read: the
    /// elements as written are never held all at once (for a reply of 20,000 they
    /// took 9 MiB beside the 9 MiB of the decoder's own map).
    struct WireList: Decodable {
        var actions: [EpisodeAction] = []
        var skipped: [SkippedAction] = []

        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            if let count = list.count { actions.reserveCapacity(count) }
            while !list.isAtEnd {
                let index = list.currentIndex
                switch ActionPage.action(try list.decode(WireElement.self)) {
                case .success(let action): actions.append(action)
                case .failure(let reason): skipped.append(SkippedAction(path: "$.actions[\(index)]", reason: reason))
                }
            }
        }
    }

    /// One element of `actions` as written, members of the wrong type read as
    /// missing. Each member is asked for in the type it usually has, so that the
    /// decoder seldom makes an error only to be dropped (its errors are costly).
    struct WireElement: Decodable {
        var isObject = false
        var podcast, episode, action, guid, device: String?
        var timestamp, started, position, total: Scalar?

        enum CodingKeys: String, CodingKey {
            case podcast, episode, action, guid, device, timestamp, started, position, total
        }

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: CodingKeys.self) else { return }
            isObject = true
            func text(_ key: CodingKeys) -> String? { try? container.decodeIfPresent(String.self, forKey: key) }
            (podcast, episode, action) = (text(.podcast), text(.episode), text(.action))
            (guid, device) = (text(.guid), text(.device))
            timestamp = Scalar.read(container, .timestamp, numberFirst: false)
            started = Scalar.read(container, .started, numberFirst: true)
            position = Scalar.read(container, .position, numberFirst: true)
            total = Scalar.read(container, .total, numberFirst: true)
        }
    }

    /// A member that may be text or a number.
    enum Scalar {
        case text(String)
        case number(Double)

        static func read<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key, numberFirst: Bool)
            -> Scalar?
        {
            guard container.contains(key) else { return nil }
            func number() -> Scalar? { (try? container.decode(Double.self, forKey: key)).map(Scalar.number) }
            func text() -> Scalar? { (try? container.decode(String.self, forKey: key)).map(Scalar.text) }
            return numberFirst ? number() ?? text() : text() ?? number()
        }

        var integer: Int64? { ActionPage.integer(value) }
        /// As `JSONSerialization` would give it.
        var value: Any {
            switch self {
            case .text(let text): text
            case .number(let number): number
            }
        }
    }

    static func integer(_ value: Any?) -> Int64? {
        if let text = value as? String { return Int64(text) }
        let double: Double
        if let value = value as? Double {
            double = value
        } else if let number = value as? NSNumber {
            double = number.doubleValue
        } else {
            return nil
        }
        return double.isFinite && abs(double) < 9e18 ? Int64(double) : nil
    }

    private static func looksLikeHTML(_ data: Data) -> Bool {
        let head = String(decoding: data.prefix(256), as: UTF8.self).lowercased()
        return head.contains("<html") || head.contains("<!doctype")
    }
}

/// An action a reply held that could not be used, where it was and why.
public struct SkippedAction: Sendable, Equatable {
    public enum Reason: Error, Sendable, Equatable, CustomStringConvertible {
        case notAnObject
        case missing(String)
        case unknownKind(String)
        case badTimestamp

        public var description: String {
            switch self {
            case .notAnObject: "not an object"
            case .missing(let key): "no \(key)"
            case .unknownKind(let name): "unknown action '\(name)'"
            case .badTimestamp: "a timestamp that is not a date"
            }
        }
    }

    /// Its JSON path in the reply: `$.actions[3]`.
    public let path: String
    public let reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }
}

/// Episode-action timestamps: ISO 8601 in UTC, written without a zone by
/// gpodder.net's documentation and with `Z` by opodsync and Nextcloud.
public enum ActionTime {
    /// `2026-11-24T09:00:00`, with or without `Z`, fractional seconds or an offset;
    /// or seconds since 1970 as a number.
    public static func parse(_ value: Any?) -> Date? {
        if let seconds = ActionPage.integer(value), !(value is String) {
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        guard var text = value as? String else { return nil }
        text = text.trimmingCharacters(in: .whitespaces)
        // A zone is `Z` or `±hh:mm` (`±hhmm`) after the time; none means UTC.
        if !(text.hasSuffix("Z") || text.hasSuffix("z") || hasOffset(text)) { text += "Z" }
        return ISO8601.parse(text)
    }

    /// A server's timestamp, taken as where the next sync goes on from, must be a
    /// believable time: one reply stamped 8.9e18 would fix the cursor there for
    /// good, and no later change would ever be asked for.
    public static func checkCursor(_ timestamp: Int64, url: URL) throws(SyncError) {
        guard timestamp >= 0, isBelievable(Date(timeIntervalSince1970: TimeInterval(timestamp))) else {
            throw .badReply(url: url, path: "$.timestamp", problem: "a time past tomorrow (\(timestamp))")
        }
    }

    /// How far ahead of this machine's clock another device's may run.
    public static let clockSkew: TimeInterval = 24 * 60 * 60

    /// Whether an action could have been made at `date`: not after tomorrow by
    /// this clock. One stamped `10000-01-01` would win every merge for good, and
    /// the library could not even read its date back.
    public static func isBelievable(_ date: Date, now: Date = Date()) -> Bool {
        date.timeIntervalSince1970 >= 0 && date <= now.addingTimeInterval(clockSkew)
    }

    /// Whether `text` ends in `+hh:mm`, `-hh:mm`, `+hhmm` or `-hhmm` after a time
    /// (a date's own `-dd` has no sign before four digits and a colon).
    static func hasOffset(_ text: String) -> Bool {
        let tail = Array(text.utf8.suffix(6))
        func digits(_ part: ArraySlice<UInt8>) -> Bool { part.allSatisfy { (48...57).contains($0) } }
        if tail.count == 6, tail[0] == 43 || tail[0] == 45, tail[3] == 58, digits(tail[1...2]), digits(tail[4...5]) {
            return true
        }
        let short = tail.suffix(5)
        guard short.count == 5, let sign = short.first, sign == 43 || sign == 45, digits(short.dropFirst()) else {
            return false
        }
        // `2026-11-24` ends in `-24`, not four digits; a time before the sign has a colon.
        return text.utf8.dropLast(5).contains(58)
    }

    /// The form gpodder.net documents: `2026-11-24T09:00:00`, UTC.
    public static func format(_ date: Date) -> String {
        var text = style.format(date)
        if text.hasSuffix("Z") { text.removeLast() }
        return text
    }

    private static let style = Date.ISO8601FormatStyle(timeZone: .gmt)
}
