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
    /// its documentation writes it, and `play`'s numbers only when known.
    public var json: [String: Any] {
        var object: [String: Any] = [
            "podcast": podcast, "episode": episode, "action": kind.rawValue,
            "timestamp": ActionTime.format(timestamp),
        ]
        if let guid { object["guid"] = guid }
        if let device { object["device"] = device }
        if kind == .play, let position {
            object["position"] = position
            object["started"] = started ?? 0
            if let total { object["total"] = total }
        }
        return object
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
    public static func decode(_ data: Data, url: URL) throws(SyncError) -> ActionPage {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw .badReply(url: url, path: "$", problem: Self.looksLikeHTML(data) ? "HTML, not JSON" : "not JSON")
        }
        guard let object = root as? [String: Any] else {
            throw .badReply(url: url, path: "$", problem: "not an object")
        }
        guard let list = object["actions"] as? [Any] else {
            throw .badReply(url: url, path: "$.actions", problem: "missing or not a list")
        }
        guard let timestamp = Self.integer(object["timestamp"]) else {
            throw .badReply(url: url, path: "$.timestamp", problem: "missing or not a number")
        }
        var page = ActionPage(actions: [], skipped: [], timestamp: timestamp)
        for (index, element) in list.enumerated() {
            switch Self.action(element) {
            case .success(let action): page.actions.append(action)
            case .failure(let reason): page.skipped.append(SkippedAction(path: "$.actions[\(index)]", reason: reason))
            }
        }
        return page
    }

    /// One action, or why it cannot be used.
    static func action(_ element: Any) -> Result<EpisodeAction, SkippedAction.Reason> {
        guard let object = element as? [String: Any] else { return .failure(.notAnObject) }
        guard let podcast = object["podcast"] as? String, !podcast.isEmpty else { return .failure(.missing("podcast")) }
        guard let episode = object["episode"] as? String, !episode.isEmpty else { return .failure(.missing("episode")) }
        guard let name = object["action"] as? String else { return .failure(.missing("action")) }
        guard let kind = EpisodeAction.Kind(rawValue: name.lowercased()) else { return .failure(.unknownKind(name)) }
        guard let timestamp = ActionTime.parse(object["timestamp"]) else { return .failure(.badTimestamp) }
        var action = EpisodeAction(kind, podcast: podcast, episode: episode, at: timestamp)
        action.guid = (object["guid"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        action.device = object["device"] as? String
        if kind == .play {
            let seconds = { (key: String) in integer(object[key]).flatMap { $0 >= 0 ? Int($0) : nil } }
            action.total = seconds("total").flatMap { $0 > 0 ? $0 : nil }
            action.started = seconds("started")
            // Beyond the end means the end: the device played it through.
            action.position = seconds("position").map { position in action.total.map { min(position, $0) } ?? position }
        }
        return .success(action)
    }

    static func integer(_ value: Any?) -> Int64? {
        if let text = value as? String { return Int64(text) }
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
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
        // A zone is `Z` or `±hh:mm` after the time; none means UTC.
        let hasZone = text.hasSuffix("Z") || text.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression) != nil
        if !hasZone { text += "Z" }
        return ISO8601.parse(text)
    }

    /// The form gpodder.net documents: `2026-11-24T09:00:00`, UTC.
    public static func format(_ date: Date) -> String {
        var text = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).format(date)
        if text.hasSuffix("Z") { text.removeLast() }
        return text
    }
}
