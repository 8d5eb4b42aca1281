import Foundation
import GRDB
import GRDBSQLite

/// A download the background feedsh finished or gave up while no shell watched,
/// until a later feedsh reports it ("while you were away").
public struct AwayEvent: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "awayEvent"

    public var id: Int64?
    public var at: Date
    /// `3 Title`.
    public var label: String
    public var path: String
    public var failed: Bool
    /// Why it failed.
    public var message: String?
    public var reported: Bool

    public init(label: String, path: String, failed: Bool, message: String? = nil, at: Date = Date()) {
        self.at = at
        self.label = label
        self.path = path
        self.failed = failed
        self.message = message
        self.reported = false
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Library {
    /// Records what a background download came to.
    public func recordAway(_ event: AwayEvent) async throws(LibraryError) {
        _ = try await write("write to") { db in
            var event = event
            try event.insert(db)
        }
    }

    /// Whether the library at `path` may hold events not reported yet: false only
    /// when one plain SQLite connection (no pool, no migrations, no change made)
    /// reads that it holds none, so that a start with nothing to report leaves the
    /// library closed. Anything that keeps it from telling (no such file or table,
    /// another feedsh holding the file past the 1 s wait, damage) answers true,
    /// and the caller asks the opened library, which says what is wrong.
    ///
    /// Without a WAL file beside it, every change is in the file itself (the last
    /// connection to close folds the WAL in and removes it), and the file is read
    /// as it is (SQLite's `immutable`): no WAL or shared-memory file made and
    /// removed again, no lock, half the check's time. A feedsh that opens it
    /// meanwhile writes to a new WAL, not the file, so what is read is what was
    /// there; should that feedsh also fold its WAL in during the read, the read
    /// fails (true) or misses an event just recorded, which stays unreported
    /// until the next start. With a WAL file (another feedsh has the library
    /// open, or one stopped without closing it), the connection reads through
    /// it, as any other does.
    ///
    /// It speaks to SQLite directly: a GRDB connection, even a plain
    /// `DatabaseQueue`, pages in about 2 MiB more of the binary, and this runs at
    /// every start (docs/performance.md, "Start").
    public static func mayHoldUnreportedAwayEvents(at path: String) -> Bool {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        var info = stat()
        let opened: Int32
        if lstat(path + "-wal", &info) != 0, errno == ENOENT {
            opened = sqlite3_open_v2(immutableURI(path), &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        } else {
            opened = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil)
        }
        guard opened == SQLITE_OK else { return true }
        sqlite3_busy_timeout(connection, 1000)
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let sql = "SELECT EXISTS (SELECT 1 FROM \(AwayEvent.databaseTableName) WHERE reported = 0)"
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW
        else { return true }
        return sqlite3_column_int(statement, 0) != 0
    }

    /// The events not reported yet, oldest first, marked reported in the same
    /// transaction: each is said once, by one feedsh.
    public func takeAwayEvents() async throws(LibraryError) -> [AwayEvent] {
        try await write("write to") { db in
            let events = try AwayEvent.filter(AwayEvent.Columns.reported == false).order(AwayEvent.Columns.id).fetchAll(
                db
            )
            try AwayEvent.filter(AwayEvent.Columns.reported == false)
                .updateAll(db, AwayEvent.Columns.reported.set(to: true))
            return events
        }
    }
}

extension AwayEvent {
    /// Its columns, named after its properties.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let reported = Column(CodingKeys.reported)
    }
}
