import Foundation
import GRDB

/// A clip `clip` made: a span of an episode written to a file, kept so that
/// `clips` lists them.
public struct StoredClip: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "clip"

    public var id: Int64?
    /// Nil once the episode left the library (its subscription removed).
    public var episodeID: Int64?
    public var podcastTitle: String
    public var episodeTitle: String
    /// Seconds into the episode.
    public var start: Double
    public var end: Double
    public var path: String
    /// The `.srt` written beside it, when asked for.
    public var transcriptPath: String?
    /// Whether it was encoded again (a copy could not cut there exactly enough).
    public var reencoded: Bool
    public var created: Date

    public init(
        episodeID: Int64?,
        podcastTitle: String,
        episodeTitle: String,
        start: Double,
        end: Double,
        path: String,
        transcriptPath: String?,
        reencoded: Bool,
        created: Date = Date()
    ) {
        self.episodeID = episodeID
        self.podcastTitle = podcastTitle
        self.episodeTitle = episodeTitle
        self.start = start
        self.end = end
        self.path = path
        self.transcriptPath = transcriptPath
        self.reencoded = reencoded
        self.created = created
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    static func create(_ db: Database) throws {
        try db.create(table: databaseTableName) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("episodeID", .integer).indexed().references("episode", onDelete: .setNull)
            t.column("podcastTitle", .text).notNull()
            t.column("episodeTitle", .text).notNull()
            t.column("start", .double).notNull()
            t.column("end", .double).notNull()
            t.column("path", .text).notNull()
            t.column("transcriptPath", .text)
            t.column("reencoded", .boolean).notNull()
            t.column("created", .datetime).notNull()
        }
    }
}

extension Library {
    /// Keeps a clip made; returns it with its id.
    @discardableResult
    public func recordClip(_ clip: StoredClip) async throws(LibraryError) -> StoredClip {
        try await write("write to") { db in
            var clip = clip
            try clip.insert(db)
            return clip
        }
    }

    /// The clips made, oldest first.
    public func clips() async throws(LibraryError) -> [StoredClip] {
        try await read { db in try StoredClip.order(Column("id")).fetchAll(db) }
    }
}
