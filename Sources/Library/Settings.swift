import FeedKit
import Foundation
import GRDB
import WebBasics

/// A setting kept in the library (`set NAME VALUE`).
public enum Setting: String, CaseIterable, Sendable {
    /// Playback speed for `play` (mpv's `--speed`).
    case speed
    /// The program `play` runs: `mpv` (controlled through its JSON IPC) or another
    /// command, with `{}` for the file or URL.
    case player
    /// The pager for results taller than the screen.
    case pager
    /// Downloads at once when `--max-concurrent` is not given.
    case maxConcurrent = "max-concurrent"
    /// Whether cleanup deletes the played files beyond a podcast's `keep`.
    case cleanup
    /// The largest file a download may be, when `--max-filesize` is not given.
    case maxSize = "max-size"
    /// Whether `update` fetches new episodes' transcripts (`set transcripts auto on`).
    case transcripts
    /// The Podcast Index API key and secret, for `search --index`.
    case podcastIndexKey = "podcastindex-key"
    case podcastIndexSecret = "podcastindex-secret"
    /// The cap on the total download rate when `--limit-rate` is not given.
    case rateLimit = "rate-limit"
    /// Whether `update` and `play` sync afterwards (`set sync auto on`).
    case sync
    /// Long pauses are shortened while playing (mpv's `af`).
    case skipSilence = "skip-silence"
    /// Quiet and loud shows play at one level (mpv's `af`).
    case loudness
    /// Decibels added to the volume, 0 to 12.
    case volumeBoost = "volume-boost"
    /// Seconds a play from the start skips.
    case skipIntro = "skip-intro"
    /// Seconds before the end at which an episode counts as played and stops.
    case skipOutro = "skip-outro"
    /// Words: a chapter whose title holds one is jumped over.
    case skipChapters = "skip-chapters"
    /// The password `feedsh serve` wants (Basic auth) when `FEEDSH_SERVE_PASSWORD`
    /// is not set.
    case servePassword = "serve-password"
    /// Whether `play` is a media player on the desktop's session bus (MPRIS).
    case mpris

    public var name: String { rawValue }

    /// The listening settings a subscription may set for itself
    /// (`set podcast P NAME VALUE`), over the library's.
    public static let perPodcast: [Setting] = [
        .skipSilence, .loudness, .volumeBoost, .skipIntro, .skipOutro, .skipChapters,
    ]

    /// The longest intro or outro that may be skipped.
    public static let longestSkip: Double = 30 * 60

    /// A value never shown (`set` lists it as set or not).
    public var isSecret: Bool { self == .podcastIndexSecret || self == .servePassword }

    /// The value `text` stands for, normalized (`1.50` is `1.5`), or why it cannot be.
    public func normalize(_ text: String) throws(SettingError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch self {
        case .speed:
            guard let speed = Double(trimmed), speed.isFinite, (0.25...4).contains(speed) else {
                throw SettingError(self, text, expected: "a number from 0.25 to 4")
            }
            return Self.decimal(speed)
        case .player:
            guard !trimmed.isEmpty else { throw SettingError(self, text, expected: "a command") }
            return trimmed
        case .pager:
            return trimmed.isEmpty || trimmed == "off" ? "none" : trimmed
        case .maxConcurrent:
            guard let count = Int(trimmed), (1...64).contains(count) else {
                throw SettingError(self, text, expected: "a whole number from 1 to 64")
            }
            return String(count)
        case .cleanup, .mpris:
            return try Self.onOff(trimmed, for: self) ? "on" : "off"
        case .maxSize:
            guard let bytes = ByteSize.atLeast1k(trimmed) else {
                throw SettingError(self, text, expected: "a size of at least 1k, such as 500M or 4G")
            }
            return ByteSize.format(bytes)
        case .transcripts, .sync:
            // `auto on` as the manual says it; `on` alone too.
            let words = trimmed.split(separator: " ")
            let value = words.first?.lowercased() == "auto" ? words.dropFirst().joined(separator: " ") : trimmed
            return try Self.onOff(value, for: self) ? "auto on" : "auto off"
        case .rateLimit:
            guard let bytes = ByteSize.atLeast1k(trimmed) else {
                throw SettingError(self, text, expected: "a rate of at least 1k a second, such as 200k or 1.5M")
            }
            return ByteSize.format(bytes)
        case .skipSilence, .loudness:
            return try Self.onOff(trimmed, for: self) ? "on" : "off"
        case .volumeBoost:
            let number = trimmed.lowercased().hasSuffix("db") ? String(trimmed.dropLast(2)) : trimmed
            guard let decibels = Double(number), decibels.isFinite, (0...12).contains(decibels) else {
                throw SettingError(self, text, expected: "decibels from 0 to 12, such as 6 or 6dB")
            }
            return Self.decimal(decibels)
        case .skipIntro, .skipOutro:
            guard let seconds = ListeningTime.seconds(trimmed), (0...Self.longestSkip).contains(seconds) else {
                throw SettingError(self, text, expected: "a time from 0s to 30m, such as 45s, 1m30s or 1:30")
            }
            return ListeningTime.text(seconds)
        case .skipChapters:
            let words = trimmed.split(whereSeparator: { $0.isWhitespace || $0 == "," })
            guard !words.isEmpty else { throw SettingError(self, text, expected: "words such as 'sponsor ad'") }
            return words.joined(separator: " ")
        case .servePassword:
            guard trimmed.count >= 8, !trimmed.contains(where: { $0.isNewline }) else {
                throw SettingError(self, "…", expected: "a password of at least 8 characters")
            }
            return trimmed
        case .podcastIndexKey, .podcastIndexSecret:
            guard !trimmed.isEmpty, !trimmed.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw SettingError(self, isSecret ? "…" : text, expected: "one word without spaces")
            }
            return trimmed
        }
    }

    /// `on` or `off` (also yes/no, true/false, 1/0).
    public static func onOff(_ text: String, for setting: Setting? = nil) throws(SettingError) -> Bool {
        switch text.lowercased() {
        case "on", "yes", "true", "1": true
        case "off", "no", "false", "0": false
        default: throw SettingError(setting, text, expected: "on or off")
        }
    }

    /// `1.5`, `2`, `0.75`: no trailing zeros.
    public static func decimal(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }
}

/// A value a setting cannot take, saying what it takes.
public struct SettingError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ setting: Setting?, _ value: String, expected: String) {
        let subject = setting.map { "\($0.name) " } ?? ""
        description = "\(subject)takes \(expected), not '\(value)'"
    }
}

/// The settings as stored: what was set, with the defaults for the rest.
public struct Settings: Sendable, Equatable {
    /// The values that were set, normalized.
    public var values: [Setting: String]

    public init(values: [Setting: String] = [:]) {
        self.values = values
    }

    public var speed: Double { values[.speed].flatMap(Double.init) ?? 1 }
    /// The player command, when one was set.
    public var player: String? { values[.player] }
    /// The pager: nil when unset (use `$PAGER`), `""` for none.
    public var pager: String? { values[.pager].map { $0 == "none" ? "" : $0 } }
    public var maxConcurrent: Int? { values[.maxConcurrent].flatMap { Int($0) } }
    public var cleanup: Bool { values[.cleanup] != "off" }
    /// The largest file a download may be, when set.
    public var maxSize: Int64? { values[.maxSize].flatMap(ByteSize.parse) }
    /// `update` fetches new episodes' transcripts.
    public var transcriptsAuto: Bool { values[.transcripts] == "auto on" }
    /// The cap on the total download rate in bytes a second, when set.
    public var rateLimit: Int64? { values[.rateLimit].flatMap(ByteSize.atLeast1k) }
    /// `update` and `play` sync afterwards, when an account is logged in.
    public var syncAuto: Bool { values[.sync] == "auto on" }
    /// `play` answers media keys on the session bus (on unless set off).
    public var mpris: Bool { values[.mpris] != "off" }

    /// The listening settings in effect for a podcast with `overrides` of its own.
    public func listening(overriddenBy overrides: [Setting: String] = [:]) -> ListeningSettings {
        func value(_ setting: Setting) -> String? { overrides[setting] ?? values[setting] }
        return ListeningSettings(
            skipSilence: value(.skipSilence) == "on",
            loudness: value(.loudness) == "on",
            volumeBoost: value(.volumeBoost).flatMap(Double.init) ?? 0,
            skipIntro: value(.skipIntro).flatMap(ListeningTime.seconds) ?? 0,
            skipOutro: value(.skipOutro).flatMap(ListeningTime.seconds) ?? 0,
            skipChapters: value(.skipChapters).map { $0.split(separator: " ").map(String.init) } ?? []
        )
    }
}

/// What a play does beyond speed, from the settings (the library's, then the
/// podcast's own).
public struct ListeningSettings: Sendable, Equatable {
    public var skipSilence = false
    public var loudness = false
    /// Decibels added, 0 to 12.
    public var volumeBoost: Double = 0
    /// Seconds skipped at the start of a play from the beginning.
    public var skipIntro: Double = 0
    /// Seconds before the end that count as the end.
    public var skipOutro: Double = 0
    /// Words: chapters whose titles hold one (case-insensitive) are jumped over.
    public var skipChapters: [String] = []

    public init(
        skipSilence: Bool = false,
        loudness: Bool = false,
        volumeBoost: Double = 0,
        skipIntro: Double = 0,
        skipOutro: Double = 0,
        skipChapters: [String] = []
    ) {
        self.skipSilence = skipSilence
        self.loudness = loudness
        self.volumeBoost = volumeBoost
        self.skipIntro = skipIntro
        self.skipOutro = skipOutro
        self.skipChapters = skipChapters
    }
}

/// Lengths of time as listeners write them: `45s`, `30m`, `1h30m`, `90` (seconds),
/// `1:30`, `1:02:03`.
public enum ListeningTime {
    /// Seconds, or nil when `text` is no such time (or is negative).
    public static func seconds(_ text: String) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty, !text.hasPrefix("-") else { return nil }
        if let plain = Double(text) { return plain.isFinite && plain <= ChapterList.latestStart ? plain : nil }
        if text.contains(":") { return ClockTime.seconds(text, fields: 2...3) }
        var total = 0.0
        var number = ""
        for character in text {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            let unit: Double
            switch character {
            case "h": unit = 3600
            case "m": unit = 60
            case "s": unit = 1
            default: return nil
            }
            guard let value = Double(number) else { return nil }
            total += value * unit
            number = ""
        }
        guard number.isEmpty, total.isFinite, total <= ChapterList.latestStart else { return nil }
        return total
    }

    /// `45s`, `1m30s`, `2h`: how `set` shows a time.
    public static func text(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole % 3600 / 60, whole % 60)
        var text = ""
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 { text += "\(minutes)m" }
        if rest > 0 || text.isEmpty { text += "\(rest)s" }
        return text
    }
}

extension Library {
    /// The stored settings.
    public func settings() async throws(LibraryError) -> Settings {
        try await read { db in
            var values: [Setting: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM setting") {
                if let setting = Setting(rawValue: row["name"]) { values[setting] = row["value"] }
            }
            return Settings(values: values)
        }
    }

    /// Sets `setting` to `value` (normalized by ``Setting/normalize(_:)``), or back to
    /// its default when nil.
    public func set(_ setting: Setting, to value: String?) async throws(LibraryError) {
        _ = try await write("write to") { db in
            if let value {
                try db.execute(
                    sql:
                        "INSERT INTO setting (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                    arguments: [setting.name, value]
                )
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE name = ?", arguments: [setting.name])
            }
        }
    }

    /// Turns auto-download on or off for a podcast.
    public func setAutodownload(_ podcastID: Int64, _ on: Bool) async throws(LibraryError) {
        _ = try await write("write to") { db in
            try StoredPodcast.filter(key: podcastID).updateAll(db, StoredPodcast.Columns.autodownload.set(to: on))
        }
    }

    /// A podcast's own playback speed; nil follows the `speed` setting.
    public func setSpeed(_ podcastID: Int64, _ speed: Double?) async throws(LibraryError) {
        _ = try await write("write to") { db in
            try StoredPodcast.filter(key: podcastID).updateAll(db, StoredPodcast.Columns.speed.set(to: speed))
        }
    }

    /// How many downloaded files cleanup keeps for a podcast; nil keeps all.
    public func setKeep(_ podcastID: Int64, _ keep: Int?) async throws(LibraryError) {
        _ = try await write("write to") { db in
            try StoredPodcast.filter(key: podcastID).updateAll(db, StoredPodcast.Columns.keep.set(to: keep))
        }
    }
}

/// Which downloaded files cleanup deletes.
public enum Cleanup {
    /// Of a podcast's episodes, newest first, the ones whose files go: the newest
    /// `keep` downloaded ones stay, and beyond them only played ones go. Unplayed
    /// episodes are never deleted.
    public static func victims<Episode>(
        _ episodes: [Episode],
        keep: Int,
        hasFile: (Episode) -> Bool,
        played: (Episode) -> Bool
    ) -> [Episode] {
        var kept = 0
        var victims: [Episode] = []
        for episode in episodes where hasFile(episode) {
            if kept < keep {
                kept += 1
            } else if played(episode) {
                victims.append(episode)
            }
        }
        return victims
    }
}
