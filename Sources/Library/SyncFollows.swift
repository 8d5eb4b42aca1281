import Foundation
import GRDB

/// A subscription another device made that this library has not followed yet:
/// waiting for its turn (one sync follows a bounded number), or tried, failed,
/// and waiting to be tried again later.
///
/// Remembered here, the server's list of subscription changes is read once and
/// its cursor moves on: a feed that cannot be followed is not asked for again
/// on every sync, and neither is the whole history of actions.
public struct PendingFollow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "syncFollow"

    /// The feed URL as the server gave it.
    public var feedURL: String
    /// The actions cursor when the server first named it: once it is followed,
    /// the actions pulled since then (which named no subscription here) are asked
    /// for again.
    public var actionsSince: Int64
    /// Failed tries so far, the last one when, and why.
    public var attempts: Int
    public var lastTried: Date?
    public var problem: String?

    public init(feedURL: String, actionsSince: Int64, attempts: Int = 0, lastTried: Date? = nil, problem: String? = nil)
    {
        self.feedURL = feedURL
        self.actionsSince = actionsSince
        self.attempts = attempts
        self.lastTried = lastTried
        self.problem = problem
    }

    public enum Columns {
        public static let feedURL = Column(CodingKeys.feedURL)
        public static let lastTried = Column(CodingKeys.lastTried)
    }

    /// The shortest wait after a failed try; each further failure doubles it.
    public static let firstRetry: TimeInterval = 3600
    /// The longest wait between tries.
    public static let longestRetry: TimeInterval = 86_400

    /// When it may be tried: at once if never tried, else an hour after the
    /// first failure, doubling with each, at most a day.
    public var due: Date {
        guard let lastTried, attempts > 0 else { return .distantPast }
        let wait = min(Self.longestRetry, Self.firstRetry * pow(2, Double(min(attempts - 1, 16))))
        return lastTried.addingTimeInterval(wait)
    }
}

extension Library {
    static func createSyncFollows(_ db: Database) throws {
        try db.create(table: "syncFollow") { t in
            t.primaryKey("feedURL", .text)
            t.column("actionsSince", .integer).notNull().defaults(to: 0)
            t.column("attempts", .integer).notNull().defaults(to: 0)
            t.column("lastTried", .datetime)
            t.column("problem", .text)
        }
    }

    /// Remembers feeds another device subscribed to, to follow in turn; one
    /// remembered already keeps its place and its failures.
    public func rememberFollows(_ feedURLs: [String], actionsSince: Int64) async throws(LibraryError) {
        guard !feedURLs.isEmpty else { return }
        _ = try await write("write to") { db in
            for feedURL in feedURLs {
                try PendingFollow(feedURL: feedURL, actionsSince: actionsSince).insert(db, onConflict: .ignore)
            }
        }
    }

    /// Forgets feeds followed, or removed again by another device.
    public func forgetFollows(_ feedURLs: [String]) async throws(LibraryError) {
        guard !feedURLs.isEmpty else { return }
        _ = try await write("write to") { db in try PendingFollow.deleteAll(db, keys: feedURLs) }
    }

    /// Up to `limit` of the remembered feeds due a try at `now`, in the order the
    /// server named them, those never tried first; and how many are remembered.
    public func followsDue(at now: Date, limit: Int) async throws(LibraryError) -> (
        due: [PendingFollow], remembered: Int
    ) {
        try await read { db in
            let remembered = try PendingFollow.fetchCount(db)
            var due: [PendingFollow] = []
            let untried = try PendingFollow.filter(PendingFollow.Columns.lastTried == nil).order(Column.rowID)
                .limit(limit).fetchAll(db)
            due += untried
            if due.count < limit {
                // A failure waits at least an hour: only those tried that long ago
                // are read, and of them those whose longer wait is over.
                let cursor = try PendingFollow.filter(
                    PendingFollow.Columns.lastTried <= now.addingTimeInterval(-PendingFollow.firstRetry)
                ).order(Column.rowID).fetchCursor(db)
                while due.count < limit, let follow = try cursor.next() {
                    if follow.due <= now { due.append(follow) }
                }
            }
            return (due, remembered)
        }
    }

    /// Records a failed try at following `feedURL`.
    public func recordFollowFailure(_ feedURL: String, problem: String, at now: Date) async throws(LibraryError) {
        _ = try await write("write to") { db in
            try db.execute(
                sql: "UPDATE syncFollow SET attempts = attempts + 1, lastTried = ?, problem = ? WHERE feedURL = ?",
                arguments: [now, problem, feedURL]
            )
        }
    }

    /// The remembered feeds that failed, for `sync status`.
    public func failedFollows() async throws(LibraryError) -> [PendingFollow] {
        try await read { db in try PendingFollow.filter(sql: "attempts > 0").order(Column.rowID).fetchAll(db) }
    }
}
