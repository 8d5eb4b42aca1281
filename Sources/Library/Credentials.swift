import FeedKit
import Foundation
import GRDB
import WebBasics

/// A private feed's user name and password, kept in their own table so that no
/// query of podcasts (listings, `export`, `--json`) carries them by accident.
struct FeedCredentialRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "feedCredential"
    var podcastID: Int64
    var user: String
    var password: String

    enum Columns {
        static let podcastID = Column(CodingKeys.podcastID)
    }
}

extension Library {
    /// Gives subscription `podcastID` the feed address `newURL` (a permanent
    /// redirect, `itunes:new-feed-url`, a sync server's `update_urls`), unless
    /// another subscription has it already. Its credentials were given for its
    /// origin: when the new address is on another one they are forgotten, so
    /// that no move (or a server that claims one) takes the password there. True
    /// when they were.
    @discardableResult
    static func move(_ podcastID: Int64, to newURL: String, _ db: Database) throws -> Bool {
        guard try StoredPodcast.filter(StoredPodcast.Columns.feedURL == newURL).fetchCount(db) == 0,
            let old = try String.fetchOne(db, sql: "SELECT feedURL FROM podcast WHERE id = ?", arguments: [podcastID])
        else { return false }
        try db.execute(sql: "UPDATE podcast SET feedURL = ? WHERE id = ?", arguments: [newURL, podcastID])
        guard URL(string: old)?.origin != URL(string: newURL)?.origin else { return false }
        return try FeedCredentialRecord.deleteOne(db, key: podcastID)
    }

    /// Keeps `credentials` for subscription `podcastID`, or forgets them (nil).
    public func setCredentials(_ credentials: FeedCredentials?, of podcastID: Int64) async throws(LibraryError) {
        _ = try await write("write to") { db in
            if let credentials {
                try FeedCredentialRecord(podcastID: podcastID, user: credentials.user, password: credentials.password)
                    .upsert(db)
            } else {
                _ = try FeedCredentialRecord.deleteOne(db, key: podcastID)
            }
        }
    }

    /// The credentials of subscription `podcastID`, when it has some.
    public func credentials(of podcastID: Int64) async throws(LibraryError) -> FeedCredentials? {
        try await read { db in
            try FeedCredentialRecord.fetchOne(db, key: podcastID).map {
                FeedCredentials(user: $0.user, password: $0.password)
            }
        }
    }

    /// Every subscription's credentials, by podcast ID (for `update` and `export
    /// --with-credentials`).
    public func allCredentials() async throws(LibraryError) -> [Int64: FeedCredentials] {
        try await read { db in
            Dictionary(
                uniqueKeysWithValues: try FeedCredentialRecord.fetchAll(db).map {
                    ($0.podcastID, FeedCredentials(user: $0.user, password: $0.password))
                }
            )
        }
    }
}
