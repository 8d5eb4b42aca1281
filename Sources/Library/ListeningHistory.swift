import FeedKit
import Foundation
import GRDB
import WebBasics

/// Which episode a history row or bookmark is about, kept as text beside the
/// episode's id: a listening history outlives an `unsubscribe`, and its export
/// names the feed and GUID another tool matches episodes by.
public struct EpisodeIdentity: Codable, Sendable, Equatable {
    /// The library's episode, while it is in the library.
    public var episodeID: Int64?
    public var podcastTitle: String
    public var episodeTitle: String
    public var feedURL: String
    public var guid: String

    public init(episodeID: Int64?, podcastTitle: String, episodeTitle: String, feedURL: String, guid: String) {
        self.episodeID = episodeID
        self.podcastTitle = podcastTitle
        self.episodeTitle = episodeTitle
        self.feedURL = feedURL
        self.guid = guid
    }
}

/// One playback, as the history keeps it: where it went in the file, how long it
/// took, and what speed and silence skipping saved.
public struct PlaybackRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "playback"

    public var id: Int64?
    public var episodeID: Int64?
    public var podcastTitle: String
    public var episodeTitle: String
    public var feedURL: String
    public var guid: String
    /// When playback started.
    public var started: Date
    /// File positions, in seconds, where it started and stopped.
    public var fromSeconds: Double
    public var toSeconds: Double
    /// Seconds of the file heard (seeks left out), silences included.
    public var mediaSeconds: Double
    /// Seconds it took, pauses left out.
    public var wallSeconds: Double
    public var speed: Double
    /// Seconds of the file that silence skipping left out.
    public var silenceSkipped: Double
    /// It reached the end (or the outro) and the episode was marked played.
    public var finished: Bool

    public init(
        episode: EpisodeIdentity,
        started: Date,
        fromSeconds: Double,
        toSeconds: Double,
        mediaSeconds: Double,
        wallSeconds: Double,
        speed: Double,
        silenceSkipped: Double,
        finished: Bool
    ) {
        episodeID = episode.episodeID
        podcastTitle = episode.podcastTitle
        episodeTitle = episode.episodeTitle
        feedURL = episode.feedURL
        guid = episode.guid
        self.started = started
        self.fromSeconds = fromSeconds
        self.toSeconds = toSeconds
        self.mediaSeconds = mediaSeconds
        self.wallSeconds = wallSeconds
        self.speed = speed
        self.silenceSkipped = silenceSkipped
        self.finished = finished
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    public enum Columns {
        public static let started = Column(CodingKeys.started)
        public static let id = Column(CodingKeys.id)
    }

    /// Seconds that playing faster than 1× saved: the heard audio (silences
    /// skipped left out) at 1× less the same at `speed`.
    public var savedBySpeed: Double {
        let heard = max(0, mediaSeconds - silenceSkipped)
        return speed > 0 ? max(0, heard - heard / speed) : 0
    }

    /// Seconds that skipping silence saved, at the speed played.
    public var savedBySilence: Double {
        speed > 0 ? silenceSkipped / speed : 0
    }
}

/// A moment of an episode marked to come back to, with a note.
public struct Bookmark: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "bookmark"

    public var id: Int64?
    public var episodeID: Int64?
    public var podcastTitle: String
    public var episodeTitle: String
    public var feedURL: String
    public var guid: String
    /// Seconds into the file.
    public var at: Double
    public var note: String?
    public var created: Date

    public init(episode: EpisodeIdentity, at: Double, note: String?, created: Date = Date()) {
        episodeID = episode.episodeID
        podcastTitle = episode.podcastTitle
        episodeTitle = episode.episodeTitle
        feedURL = episode.feedURL
        guid = episode.guid
        self.at = at
        self.note = note
        self.created = created
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let episodeID = Column(CodingKeys.episodeID)
    }

    /// The subscription and episode it is in, while they are in the library.
    public var episodeRef: EpisodeRef? {
        episodeID.map { EpisodeRef(podcast: podcastNumber ?? 0, episode: $0) }
    }

    /// Filled in when read: the episode's subscription.
    public var podcastNumber: Int64?

    private enum CodingKeys: String, CodingKey {
        case id, episodeID, podcastTitle, episodeTitle, feedURL, guid, at, note, created
    }
}

extension Library {
    /// The history and bookmark tables, and the podcasts' own listening settings.
    static func createListeningTables(_ db: Database) throws {
        try db.create(table: "podcastSetting") { t in
            t.belongsTo("podcast", onDelete: .cascade).notNull()
            t.column("name", .text).notNull()
            t.column("value", .text).notNull()
            t.primaryKey(["podcastID", "name"])
        }
        for table in ["playback", "bookmark"] {
            try db.create(table: table) { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("episode", onDelete: .setNull)
                t.column("podcastTitle", .text).notNull()
                t.column("episodeTitle", .text).notNull()
                t.column("feedURL", .text).notNull()
                t.column("guid", .text).notNull()
                if table == "playback" {
                    t.column("started", .datetime).notNull().indexed()
                    t.column("fromSeconds", .double).notNull()
                    t.column("toSeconds", .double).notNull()
                    t.column("mediaSeconds", .double).notNull()
                    t.column("wallSeconds", .double).notNull()
                    t.column("speed", .double).notNull()
                    t.column("silenceSkipped", .double).notNull()
                    t.column("finished", .boolean).notNull()
                } else {
                    t.column("at", .double).notNull()
                    t.column("note", .text)
                    t.column("created", .datetime).notNull()
                }
            }
        }
    }

    /// A podcast's own listening settings (`set podcast P NAME VALUE`).
    public func podcastSettings(_ podcastID: Int64) async throws(LibraryError) -> [Setting: String] {
        try await read { db in
            var values: [Setting: String] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT name, value FROM podcastSetting WHERE podcastID = ?",
                arguments: [podcastID]
            )
            for row in rows {
                if let setting = Setting(rawValue: row["name"]) { values[setting] = row["value"] }
            }
            return values
        }
    }

    /// Every subscription's own listening settings, by podcast id.
    public func allPodcastSettings() async throws(LibraryError) -> [Int64: [Setting: String]] {
        try await read { db in
            var values: [Int64: [Setting: String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT podcastID, name, value FROM podcastSetting") {
                if let setting = Setting(rawValue: row["name"]) {
                    values[row["podcastID"], default: [:]][setting] = row["value"]
                }
            }
            return values
        }
    }

    /// Sets a podcast's own `setting` (normalized), or drops it (nil) so that the
    /// library's applies again.
    public func setPodcastSetting(_ podcastID: Int64, _ setting: Setting, to value: String?) async throws(LibraryError)
    {
        _ = try await write("write to") { db in
            if let value {
                try db.execute(
                    sql: """
                        INSERT INTO podcastSetting (podcastID, name, value) VALUES (?, ?, ?)
                        ON CONFLICT(podcastID, name) DO UPDATE SET value = excluded.value
                        """,
                    arguments: [podcastID, setting.name, value]
                )
            } else {
                try db.execute(
                    sql: "DELETE FROM podcastSetting WHERE podcastID = ? AND name = ?",
                    arguments: [podcastID, setting.name]
                )
            }
        }
    }

    /// Who an episode is, for the history: its podcast's title and feed, its GUID.
    public func identity(ofEpisode episodeID: Int64) async throws(LibraryError) -> EpisodeIdentity? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT p.title AS podcastTitle, e.title AS episodeTitle, p.feedURL, e.guid
                        FROM episode e JOIN podcast p ON p.id = e.podcastID WHERE e.id = ?
                        """,
                    arguments: [episodeID]
                )
            else { return nil }
            return EpisodeIdentity(
                episodeID: episodeID,
                podcastTitle: row["podcastTitle"],
                episodeTitle: row["episodeTitle"],
                feedURL: URL.redacted(row["feedURL"] as String),
                guid: row["guid"]
            )
        }
    }

    /// Adds one playback to the history.
    @discardableResult
    public func record(_ playback: PlaybackRecord) async throws(LibraryError) -> PlaybackRecord {
        try await write("write to") { db in
            var record = playback
            try record.insert(db)
            return record
        }
    }

    /// The playbacks since `date` (all when nil), oldest first.
    public func playbacks(since date: Date? = nil) async throws(LibraryError) -> [PlaybackRecord] {
        try await read { db in
            var request = PlaybackRecord.order(PlaybackRecord.Columns.started, PlaybackRecord.Columns.id)
            if let date { request = request.filter(PlaybackRecord.Columns.started >= date) }
            return try request.fetchAll(db)
        }
    }

    /// Marks `seconds` into an episode.
    @discardableResult
    public func addBookmark(episodeID: Int64, at seconds: Double, note: String?, now: Date = Date())
        async throws(LibraryError) -> Bookmark?
    {
        guard let identity = try await identity(ofEpisode: episodeID) else { return nil }
        return try await write("write to") { db in
            var bookmark = Bookmark(episode: identity, at: seconds, note: note, created: now)
            try bookmark.insert(db)
            bookmark.podcastNumber = try Int64.fetchOne(
                db,
                sql: "SELECT podcastID FROM episode WHERE id = ?",
                arguments: [episodeID]
            )
            return bookmark
        }
    }

    /// Every bookmark, in the order they were made (`b1` first), each with its
    /// subscription while the episode is in the library.
    public func bookmarks() async throws(LibraryError) -> [Bookmark] {
        try await read { db in
            let numbers = try Dictionary(
                Row.fetchAll(
                    db,
                    sql: "SELECT b.id, e.podcastID FROM bookmark b JOIN episode e ON e.id = b.episodeID"
                ).map { (row: Row) -> (Int64, Int64) in (row["id"], row["podcastID"]) }
            ) { first, _ in first }
            return try Bookmark.order(Bookmark.Columns.id).fetchAll(db).map { bookmark in
                var bookmark = bookmark
                bookmark.podcastNumber = bookmark.id.flatMap { numbers[$0] }
                return bookmark
            }
        }
    }

    /// Removes a bookmark; false when there was none with that id.
    public func removeBookmark(_ id: Int64) async throws(LibraryError) -> Bool {
        try await write("write to") { db in try Bookmark.deleteOne(db, key: id) }
    }

    /// The episodes marked played, with when, for `export history`.
    public func finishedEpisodes() async throws(LibraryError) -> [(identity: EpisodeIdentity, when: Date?)] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id, p.title AS podcastTitle, e.title AS episodeTitle, p.feedURL, e.guid, e.stateChanged
                    FROM episode e JOIN podcast p ON p.id = e.podcastID WHERE e.played ORDER BY e.stateChanged, e.id
                    """
            ).map { row in
                (
                    EpisodeIdentity(
                        episodeID: row["id"],
                        podcastTitle: row["podcastTitle"],
                        episodeTitle: row["episodeTitle"],
                        feedURL: URL.redacted(row["feedURL"] as String),
                        guid: row["guid"]
                    ),
                    row["stateChanged"]
                )
            }
        }
    }

    /// The transcript's words at `seconds` into an episode: the cue said then (the
    /// paragraph when it has one cue); nil without a transcript.
    public func transcriptWords(ofEpisode episodeID: Int64, at seconds: Double) async throws(LibraryError) -> String? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT start, text, cues FROM transcriptLine
                        WHERE transcriptID = ? AND start <= ? ORDER BY start DESC, id DESC LIMIT 1
                        """,
                    arguments: [episodeID, seconds + 0.5]
                )
            else { return nil }
            let text: String = row["text"]
            let starts = CueStarts.parse(row["cues"])
            guard let cue = starts.lastIndex(where: { $0.seconds <= seconds + 0.5 }) else { return text }
            let utf8 = Array(text.utf8)
            let from = min(max(starts[cue].offset, 0), utf8.count)
            let to = cue + 1 < starts.count ? min(max(starts[cue + 1].offset, from), utf8.count) : utf8.count
            return String(decoding: utf8[from..<to], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
    }
}
