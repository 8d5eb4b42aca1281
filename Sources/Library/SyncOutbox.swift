import Foundation
import GRDB

/// An episode action waiting in the outbox for a sync server: what was done to an
/// episode here, stamped with the moment it was done.
///
/// Rows are written in the same transaction as the change they record (a mark, a
/// stopped playback, a completed or deleted file), whether or not sync is set up;
/// a row leaves only when a server acknowledged it (``acknowledgeActions(_:)``).
public struct OutboxAction: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "syncAction"

    /// The gpodder.net action names.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case play, download, delete, new
    }

    public var id: Int64?
    public var kind: Kind
    public var podcastURL: String
    /// The enclosure URL, which names the episode on the server.
    public var episodeURL: String
    public var guid: String?
    public var at: Date
    /// For `play`: whole seconds where playback started and stopped, and the length.
    public var started: Int?
    public var position: Int?
    public var total: Int?

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// A `play`'s numbers: from `span` (where playback started and stopped), or,
    /// without one, played to the end (position = total). Without a duration from
    /// the feed, a span sends its position alone (the API takes `started` and
    /// `total` together or not at all), and "to the end" is 1 of 1 s, the one way
    /// to say played.
    mutating func setPlay(_ span: (started: Double, position: Double)?, duration: Double?) {
        let length = Int((duration ?? 0).rounded())
        guard let span else {
            total = max(1, length)
            started = 0
            position = total
            return
        }
        let stopped = max(0, Int(span.position.rounded(.down)))
        if length > 0 {
            total = length
            started = min(length, max(0, Int(span.started.rounded(.down))))
            position = min(length, stopped)
        } else {
            position = stopped
        }
    }
}

/// A subscription made or removed here and not yet acknowledged by the server:
/// only the latest change per feed is kept.
public struct SubscriptionChange: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "syncSubscription"
    public var feedURL: String
    /// True for a subscription, false for its removal.
    public var subscribed: Bool
    public var at: Date

    public enum Columns {
        public static let feedURL = Column(CodingKeys.feedURL)
        public static let at = Column(CodingKeys.at)
    }
}

/// Where the last sync with one account left off: the server's timestamps to ask
/// `since`, and when it ended. Kept per account, so that another server or user
/// starts from the beginning.
public struct SyncCursor: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "syncCursor"
    /// `server|user|device`.
    public var account: String
    public var actionsSince: Int64
    public var subscriptionsSince: Int64
    public var lastSync: Date?

    public init(account: String, actionsSince: Int64 = 0, subscriptionsSince: Int64 = 0, lastSync: Date? = nil) {
        self.account = account
        self.actionsSince = actionsSince
        self.subscriptionsSince = subscriptionsSince
        self.lastSync = lastSync
    }
}

/// An episode's identity and play state as a merge of other devices' actions
/// reads it.
public struct EpisodePlayState: Sendable, Equatable {
    public var id: Int64
    public var guid: String
    public var audioURL: String
    /// Its subscription's feed URL: a pulled action names it, and is matched
    /// within that subscription first.
    public var feedURL: String?
    public var seconds: Double?
    public var position: Double
    public var played: Bool
    /// When the play state last changed here or by a merge; nil: never.
    public var changed: Date?

    public init(
        id: Int64,
        guid: String,
        audioURL: String,
        feedURL: String? = nil,
        seconds: Double? = nil,
        position: Double,
        played: Bool,
        changed: Date?
    ) {
        self.id = id
        self.guid = guid
        self.audioURL = audioURL
        self.feedURL = feedURL
        self.seconds = seconds
        self.position = position
        self.played = played
        self.changed = changed
    }
}

extension Library {
    static func createSyncTables(_ db: Database) throws {
        try db.alter(table: "episode") { t in t.add(column: "stateChanged", .datetime) }
        try db.create(table: "syncAction") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("kind", .text).notNull()
            t.column("podcastURL", .text).notNull()
            t.column("episodeURL", .text).notNull()
            t.column("guid", .text)
            t.column("at", .datetime).notNull()
            t.column("started", .integer)
            t.column("position", .integer)
            t.column("total", .integer)
        }
        try db.create(table: "syncSubscription") { t in
            t.primaryKey("feedURL", .text)
            t.column("subscribed", .boolean).notNull()
            t.column("at", .datetime).notNull()
        }
        try db.create(table: "syncCursor") { t in
            t.primaryKey("account", .text)
            t.column("actionsSince", .integer).notNull().defaults(to: 0)
            t.column("subscriptionsSince", .integer).notNull().defaults(to: 0)
            t.column("lastSync", .datetime)
        }
    }

    /// Records an action of `kind` on each of these episodes, in the caller's
    /// transaction. `play` takes `started`/`position` from `span`, or, without
    /// one, says the episode was played to the end (position = total).
    static func recordActions(
        _ kind: OutboxAction.Kind,
        on episodeIDs: [Int64],
        span: (started: Double, position: Double)? = nil,
        at now: Date,
        _ db: Database
    ) throws {
        guard !episodeIDs.isEmpty else { return }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT e.guid, e.audioURL, e.seconds, p.feedURL FROM episode e JOIN podcast p ON p.id = e.podcastID
                WHERE e.id IN (\(episodeIDs.map { _ in "?" }.joined(separator: ",")))
                ORDER BY e.id
                """,
            arguments: StatementArguments(episodeIDs)
        )
        for row in rows {
            var action = OutboxAction(
                kind: kind,
                podcastURL: row["feedURL"],
                episodeURL: row["audioURL"],
                guid: row["guid"],
                at: now
            )
            if kind == .play { action.setPlay(span, duration: row["seconds"]) }
            try action.insert(db)
        }
    }

    /// For an account never synced with (at `sync login`, once: a sync killed
    /// midway must not send again what was acknowledged): a `play` action for each episode played
    /// or started here that has no `play` or `new` waiting already, so that a new
    /// device learns what was listened to here before sync was set up. Each is
    /// stamped when the episode's state last changed, or, for state kept before
    /// feedsh recorded that, when the episode was published: older than anything
    /// another device did since, so it never overrides that. Returns how many.
    public func recordPlayStatesForFirstSync() async throws(LibraryError) -> Int {
        try await write("write to") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.guid, e.audioURL, e.seconds, e.played, e.position, e.stateChanged, e.published,
                        p.feedURL
                    FROM episode e JOIN podcast p ON p.id = e.podcastID
                    WHERE (e.played OR e.position > 0) AND NOT EXISTS (
                        SELECT 1 FROM syncAction a WHERE a.episodeURL = e.audioURL AND a.kind IN ('play', 'new'))
                    ORDER BY e.id
                    """
            )
            for row in rows {
                var action = OutboxAction(
                    kind: .play,
                    podcastURL: row["feedURL"],
                    episodeURL: row["audioURL"],
                    guid: row["guid"],
                    at: row["stateChanged"] ?? row["published"] ?? Date(timeIntervalSince1970: 0)
                )
                let played: Bool = row["played"]
                action.setPlay(played ? nil : (0, row["position"]), duration: row["seconds"])
                try action.insert(db)
            }
            return rows.count
        }
    }

    /// Records that subscription `feedURL` was made or removed here.
    static func recordSubscription(_ feedURL: String, subscribed: Bool, at now: Date, _ db: Database) throws {
        try SubscriptionChange(feedURL: feedURL, subscribed: subscribed, at: now).upsert(db)
    }

    /// The oldest `limit` actions waiting to be sent.
    public func pendingActions(limit: Int) async throws(LibraryError) -> [OutboxAction] {
        try await read { db in try OutboxAction.order(OutboxAction.Columns.id).limit(limit).fetchAll(db) }
    }

    /// Takes actions the server acknowledged out of the outbox.
    public func acknowledgeActions(_ ids: [Int64]) async throws(LibraryError) {
        _ = try await write("write to") { db in try OutboxAction.deleteAll(db, keys: ids) }
    }

    /// Subscription changes waiting to be sent, oldest first.
    public func pendingSubscriptionChanges() async throws(LibraryError) -> [SubscriptionChange] {
        try await read { db in try SubscriptionChange.order(SubscriptionChange.Columns.at).fetchAll(db) }
    }

    /// Takes changes the server acknowledged out of the outbox; one changed again
    /// since it was read stays, to be sent next time.
    public func acknowledgeSubscriptionChanges(_ changes: [SubscriptionChange]) async throws(LibraryError) {
        _ = try await write("write to") { db in
            for change in changes {
                try db.execute(
                    sql: "DELETE FROM syncSubscription WHERE feedURL = ? AND at = ?",
                    arguments: [change.feedURL, change.at]
                )
            }
        }
    }

    /// Forgets the subscription changes of these feeds: a sync made them to follow
    /// the server, which need not hear of them again.
    public func discardSubscriptionChanges(_ feedURLs: [String]) async throws(LibraryError) {
        guard !feedURLs.isEmpty else { return }
        _ = try await write("write to") { db in try SubscriptionChange.deleteAll(db, keys: feedURLs) }
    }

    /// How many episode actions and subscription changes wait to be sent.
    public func outboxSize() async throws(LibraryError) -> (actions: Int, subscriptions: Int) {
        try await read { db in (try OutboxAction.fetchCount(db), try SubscriptionChange.fetchCount(db)) }
    }

    public func syncCursor(_ account: String) async throws(LibraryError) -> SyncCursor? {
        try await read { db in try SyncCursor.fetchOne(db, key: account) }
    }

    public func saveSyncCursor(_ cursor: SyncCursor) async throws(LibraryError) {
        _ = try await write("write to") { db in try cursor.upsert(db) }
    }

    /// Forgets where syncs with `account` left off (`sync logout`).
    public func forgetSyncCursor(_ account: String) async throws(LibraryError) {
        _ = try await write("write to") { db in try SyncCursor.deleteOne(db, key: account) }
    }

    /// Merges in one transaction: reads every episode's play state, asks `decide`
    /// (pure) for the new states, writes them, and moves `cursor` on, so that a
    /// crash keeps both or neither. Played episodes leave the queue and are no
    /// longer new. Returns what `decide` returned.
    public func mergePlayStates<Result: Sendable>(
        cursor: SyncCursor,
        _ decide: @escaping @Sendable ([EpisodePlayState]) -> (states: [Int64: EpisodePlayState], result: Result)
    ) async throws(LibraryError) -> Result {
        try await write("write to") { db in
            var states: [EpisodePlayState] = []
            // Each feed URL read once and shared by its episodes' states, rather
            // than a string of its own for each of 20,000 episodes.
            var feeds: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, feedURL FROM podcast") {
                feeds[row["id"]] = row["feedURL"]
            }
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT id, guid, audioURL, seconds, position, played, stateChanged, podcastID FROM episode"
            )
            while let row = try rows.next() {
                let podcastID: Int64 = row["podcastID"]
                states.append(
                    EpisodePlayState(
                        id: row["id"],
                        guid: row["guid"],
                        audioURL: row["audioURL"],
                        feedURL: feeds[podcastID],
                        seconds: row["seconds"],
                        position: row["position"],
                        played: row["played"],
                        changed: row["stateChanged"]
                    )
                )
            }
            let (changed, result) = decide(states)
            for (id, state) in changed {
                var assignments = [
                    StoredEpisode.Columns.position.set(to: state.position),
                    StoredEpisode.Columns.played.set(to: state.played),
                    StoredEpisode.Columns.stateChanged.set(to: state.changed),
                ]
                if state.played { assignments.append(StoredEpisode.Columns.isNew.set(to: false)) }
                try StoredEpisode.filter(key: id).updateAll(db, assignments)
                if state.played { try QueueItem.deleteOne(db, key: id) }
            }
            try cursor.upsert(db)
            return result
        }
    }

    /// Gives subscription `oldURL` the address `newURL` (a server's `update_urls`),
    /// unless another subscription has it already.
    public func rewriteFeedURL(_ oldURL: String, to newURL: String) async throws(LibraryError) {
        _ = try await write("write to") { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM podcast WHERE feedURL = ?", arguments: [oldURL])
            else { return }
            try Self.move(id, to: newURL, db)
        }
    }
}

extension OutboxAction {
    /// Its columns, named after its properties.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
    }
}
