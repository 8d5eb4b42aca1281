import Foundation
import GRDB

/// An episode waiting in the play queue.
struct QueueItem: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "queueItem"
    var episodeID: Int64
    /// Its place: lower plays sooner.
    var rank: Double

    enum Columns {
        static let episodeID = Column(CodingKeys.episodeID)
        static let rank = Column(CodingKeys.rank)
    }
}

/// An entry of the play queue, as `queue` lists it.
public struct QueueEntry: Sendable, Equatable {
    /// From 1, in play order.
    public var position: Int
    public var episodeID: Int64
    /// The subscription's number (P of `P:E`).
    public var podcastNumber: Int64
    /// The episode's number in its subscription's `episodes` (E of `P:E`).
    public var episodeNumber: Int
    public var podcast: String
    public var title: String
}

extension Library {
    /// The play queue, in play order (across podcasts).
    public func queue() async throws(LibraryError) -> [QueueEntry] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT q.episodeID, e.podcastID, p.title AS podcast, e.title FROM queueItem q
                    JOIN episode e ON e.id = q.episodeID JOIN podcast p ON p.id = e.podcastID
                    ORDER BY q.rank, q.episodeID
                    """
            ).enumerated().map { offset, row in
                let episodeID: Int64 = row["episodeID"]
                return QueueEntry(
                    position: offset + 1,
                    episodeID: episodeID,
                    podcastNumber: row["podcastID"],
                    episodeNumber: try Self.listedNumber(of: episodeID, db),
                    podcast: row["podcast"],
                    title: row["title"]
                )
            }
        }
    }

    /// Adds episodes at the end of the queue, in the order given; those already
    /// queued keep their place. Returns how many were added.
    @discardableResult
    public func enqueue(_ episodeIDs: [Int64]) async throws(LibraryError) -> Int {
        try await write("write to") { db in
            var rank = try Double.fetchOne(db, sql: "SELECT max(rank) FROM queueItem") ?? 0
            var added = 0
            for id in episodeIDs where try !QueueItem.exists(db, key: id) {
                rank += 1
                try QueueItem(episodeID: id, rank: rank).insert(db)
                added += 1
            }
            return added
        }
    }

    /// Takes episodes out of the queue.
    public func dequeue(_ episodeIDs: [Int64]) async throws(LibraryError) {
        _ = try await write("write to") { db in try QueueItem.filter(keys: episodeIDs).deleteAll(db) }
    }

    /// Moves the entry at `from` to `to` (positions from 1, as listed; `to` past
    /// the end moves it last). False when `from` is no entry.
    public func moveInQueue(from: Int, to: Int) async throws(LibraryError) -> Bool {
        try await write("write to") { db in
            var ids = try Int64.fetchAll(db, sql: "SELECT episodeID FROM queueItem ORDER BY rank, episodeID")
            guard ids.indices.contains(from - 1), to >= 1 else { return false }
            let moved = ids.remove(at: from - 1)
            ids.insert(moved, at: min(to - 1, ids.count))
            for (offset, id) in ids.enumerated() {
                try QueueItem(episodeID: id, rank: Double(offset + 1)).update(db)
            }
            return true
        }
    }

    /// Empties the queue; returns how many entries it had.
    @discardableResult
    public func clearQueue() async throws(LibraryError) -> Int {
        try await write("write to") { db in try QueueItem.deleteAll(db) }
    }
}
