import Foundation
import GRDB

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
