import FeedKit
import Foundation
import GRDB

/// Why the library could not do something, with the file it concerns.
///
/// Like ``FeedKit/FeedError``, a struct over a private enum: match on ``code``,
/// show ``description`` to a person. SQLite's own failures are told apart where a
/// person can act on them: another feedsh holding the file, a full disk, a file
/// that is no (longer a sound) library.
public struct LibraryError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable, Codable {
        case failed(operation: String, path: String, detail: String)
        case busy(operation: String, path: String)
        case diskFull(operation: String, path: String)
        case notALibrary(path: String, detail: String)
        case newer(path: String, schema: Int)
    }

    /// A stable, machine-readable name for the kind of error (`--json`'s `code`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        /// Any other failure of SQLite or of the file system.
        public static let failed = Code("library")
        /// Another process held the library longer than the wait (10 s).
        public static let busy = Code("library-busy")
        public static let diskFull = Code("library-disk-full")
        /// The file is not a SQLite database, or a damaged one.
        public static let notALibrary = Code("library-unreadable")
        /// A newer feedsh wrote it; it is left as it is.
        public static let newer = Code("library-newer")
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// `operation` (`read`, `write to`, `open`) of the library at `path` failed with
    /// `error`, told apart by SQLite's result code.
    init(_ operation: String, path: String, _ error: any Error) {
        guard let database = error as? DatabaseError else {
            self.init(.failed(operation: operation, path: path, detail: "\(error)"))
            return
        }
        let detail = database.message ?? "\(database.resultCode)"
        switch database.resultCode.primaryResultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: self.init(.busy(operation: operation, path: path))
        case .SQLITE_FULL: self.init(.diskFull(operation: operation, path: path))
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: self.init(.notALibrary(path: path, detail: detail))
        default: self.init(.failed(operation: operation, path: path, detail: detail))
        }
    }

    /// `operation` failed for want of space on the library's disk.
    static func diskFull(_ operation: String, path: String) -> LibraryError {
        .init(.diskFull(operation: operation, path: path))
    }

    /// A library a newer feedsh wrote (schema `schema`).
    static func newer(_ path: String, schema: Int) -> LibraryError { .init(.newer(path: path, schema: schema)) }

    public var code: Code {
        switch kind {
        case .failed: .failed
        case .busy: .busy
        case .diskFull: .diskFull
        case .notALibrary: .notALibrary
        case .newer: .newer
        }
    }

    /// The library file it concerns.
    public var path: String {
        switch kind {
        case .failed(_, let path, _), .busy(_, let path), .diskFull(_, let path), .notALibrary(let path, _),
            .newer(let path, _):
            path
        }
    }

    public var description: String {
        switch kind {
        case .failed(let operation, let path, let detail): "cannot \(operation) the library \(path): \(detail)"
        case .busy(let operation, let path):
            "cannot \(operation) the library \(path): another feedsh has held it for 10 s; try again"
        case .diskFull(let operation, let path): "cannot \(operation) the library \(path): the disk is full"
        case .notALibrary(let path, let detail):
            "\(path) is not a feedsh library, or is damaged (\(detail)); move it away, or use another library"
        case .newer(let path, let schema):
            "this library was written by a newer feedsh (schema v\(schema)): \(path) is left as it is; "
                + "use that feedsh, or another library"
        }
    }
}

/// The podcast library: one SQLite file in WAL mode, through GRDB.
///
/// Every change is its own transaction, committed when it is made, so a crash
/// loses nothing that was reported done; two feedsh processes may use one library
/// at once (writers wait for each other up to the busy timeout).
public final class Library: Sendable {
    /// How a process holds the library: one connection, or a pool.
    ///
    /// Either way the file is in WAL mode, so that other processes read while one
    /// writes; this is only about readers within this process.
    public enum Connections: Sendable {
        /// One connection (GRDB's `DatabaseQueue`): a read in this process waits
        /// for this process's write. Opening it writes nothing, so a command that
        /// only reads leaves the file as it was. For a script, which runs one
        /// command at a time.
        case one
        /// A writer and readers beside it (GRDB's `DatabasePool`): reads go on
        /// during a long write, such as a large feed's first read. Opening it
        /// writes (GRDB makes sure the WAL is not empty). For what stays up and
        /// answers several at once: the interactive shell, `serve`, `mcp`, the
        /// background feedsh.
        case pool
    }

    public let path: String
    /// The connection or pool (``Connections``), or the read-only pool of a full disk.
    let database: any DatabaseWriter
    /// Opened to be read only, because the disk had no space left: every write
    /// fails as ``LibraryError/Code/diskFull`` without trying.
    let readOnlyForFullDisk: Bool

    /// Opens (creating it and its folder when missing) and migrates the library.
    ///
    /// On a disk with no space left, SQLite cannot make the WAL's files to open
    /// the library at all ("disk I/O error"); it is then opened to be read, as
    /// it is on disk, so that everything that only reads still works.
    public init(path: String, connections: Connections = .pool) throws(LibraryError) {
        self.path = path
        do {
            database = try Self.openWriter(path, connections: connections)
            readOnlyForFullDisk = false
        } catch {
            // A newer feedsh's library stays refused, full disk or not.
            guard error.code != .newer, Self.diskIsFull(at: path) else { throw error }
            database = try Self.openToRead(path)
            readOnlyForFullDisk = true
        }
    }

    /// The library at `path`, made, checked and migrated through one connection,
    /// which is kept for ``Connections/one`` and closed for a pool opened after it.
    private static func openWriter(_ path: String, connections: Connections) throws(LibraryError) -> any DatabaseWriter
    {
        do {
            // A new library is private from its first byte; a newer feedsh's is
            // left as it is, its mode too.
            let existed = FileManager.default.fileExists(atPath: path)
            if !existed { try Self.makePrivate(path) }
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(10)
            // In WAL mode NORMAL syncs at checkpoints, not at every commit: a crash of
            // feedsh loses nothing committed (only a power cut can take the last
            // transactions, and the file stays consistent). FULL made `update` pay
            // an fsync per feed.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            var queue = try DatabaseQueue(path: path, configuration: configuration)
            try refuseNewer(queue, path: path)
            if existed, !Self.isPrivate(path) {
                // Not while a connection is open: makePrivate opens the file, and
                // closing that descriptor drops every POSIX lock this process holds
                // on it, SQLite's too. Another feedsh closing its connection then
                // found itself the last one and deleted the WAL this one went on
                // writing to (a play's saved position, lost).
                try queue.close()
                try Self.makePrivate(path)
                queue = try DatabaseQueue(path: path, configuration: configuration)
            }
            // Kept by the file once set; a library is in WAL mode from its first open.
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try Self.migrator.migrate(queue)
            try queue.write { db in
                if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < Self.schemaVersion {
                    try db.execute(sql: "PRAGMA user_version = \(Self.schemaVersion)")
                }
            }
            switch connections {
            case .one:
                return queue
            case .pool:
                try queue.close()
                return try DatabasePool(path: path, configuration: configuration)
            }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError("open", path: path, error)
        }
    }

    /// Closes its connections; what reads or writes after fails as a closed
    /// database does.
    public func close() {
        try? database.close()
    }

    /// Whether the file system of `path` has no space left (less than a few
    /// pages), and the library has no WAL with changes not yet in its file
    /// (read as the file is, they would be missed).
    static func diskIsFull(at path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        var stats = statvfs()
        guard statvfs(folder.isEmpty ? "." : folder, &stats) == 0 else { return false }
        let free = UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
        guard free < 64 << 10 else { return false }
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        return wal == 0 && FileManager.default.fileExists(atPath: path)
    }

    /// The library at `path` opened to be read as it is on disk (SQLite's
    /// `immutable`: no WAL files made, no locks taken), when it is this
    /// feedsh's schema; else the disk-full error that kept it from opening.
    private static func openToRead(_ path: String) throws(LibraryError) -> any DatabaseWriter {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.foreignKeysEnabled = true
        do {
            let pool = try DatabasePool(path: immutableURI(path), configuration: configuration)
            try refuseNewer(pool, path: path)
            let current = try pool.read { db in try migrator.hasCompletedMigrations(db) }
            guard current else { throw LibraryError.diskFull("open", path: path) }
            return pool
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError.diskFull("open", path: path)
        }
    }

    /// The URI that opens the file at `path` to be read as it is on disk (SQLite's
    /// `immutable`: no WAL files made, no locks taken). SQLite decodes `%HH` in a
    /// URI's path and ends the path at `?` or `#`, so those three are escaped; an
    /// absolute path follows an empty authority (`file:///`), so that one starting
    /// with `//` is not read as a host. Written by hand: it runs at every start of
    /// a script (``mayHoldUnreportedAwayEvents(at:)``), and `URLComponents` cost
    /// more than the rest of the URI's use.
    static func immutableURI(_ path: String) -> String {
        var uri = path.hasPrefix("/") ? "file://" : "file:"
        for scalar in path.unicodeScalars {
            switch scalar {
            case "%": uri += "%25"
            case "?": uri += "%3F"
            case "#": uri += "%23"
            default: uri.unicodeScalars.append(scalar)
            }
        }
        return uri + "?immutable=1"
    }

    /// The schema this feedsh writes, kept in SQLite's `user_version` so that an
    /// older feedsh can tell: the number of its migrations up to v11. v12 and v13
    /// came without it, and an older feedsh refuses a library that has them by
    /// their names; raising it now would make the feedsh before this one, which
    /// has the same migrations, refuse a library this one opened.
    public static let schemaVersion = 11

    /// Refuses a library a newer feedsh wrote, and leaves it as it was (the one
    /// connection made to read it closed again, taking the WAL files its read made
    /// away): by its `user_version`, or by migrations this feedsh does not know.
    static func refuseNewer(_ reader: some DatabaseReader, path: String) throws {
        let (version, applied) = try reader.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0, try migrator.appliedIdentifiers(db))
        }
        let known = Set(migrator.migrations)
        guard version > schemaVersion || !applied.isSubset(of: known) else { return }
        try reader.close()
        throw LibraryError.newer(path, schema: max(version, applied.count, schemaVersion + 1))
    }

    /// The schema, one migration a version; never edited once released.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "podcast") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("feedURL", .text).notNull().unique()
                t.column("title", .text).notNull()
                t.column("author", .text)
                t.column("summary", .text)
                t.column("artworkURL", .text)
                t.column("itunesID", .integer).indexed()
                t.column("podcastGUID", .text)
                t.column("etag", .text)
                t.column("lastModified", .text)
                t.column("subscribed", .datetime).notNull()
                t.column("updated", .datetime)
                t.column("updateCount", .integer).notNull().defaults(to: 0)
                t.column("lastError", .text)
                t.column("gone", .boolean).notNull().defaults(to: false)
            }
            try db.create(table: "episode") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("podcast", onDelete: .cascade).notNull()
                t.column("guid", .text).notNull()
                t.column("title", .text).notNull()
                t.column("summary", .text)
                t.column("published", .datetime)
                t.column("seconds", .double)
                t.column("audioURL", .text).notNull()
                t.column("audioType", .text)
                t.column("audioLength", .integer)
                t.column("trackID", .integer)
                t.column("season", .integer)
                t.column("episodeNumber", .integer)
                t.column("chaptersURL", .text)
                t.column("transcripts", .text)
                t.column("funding", .text)
                t.column("isNew", .boolean).notNull().defaults(to: false)
                t.column("played", .boolean).notNull().defaults(to: false)
                t.column("position", .double).notNull().defaults(to: 0)
                t.column("downloaded", .boolean).notNull().defaults(to: false)
                t.column("firstSeen", .datetime).notNull()
                t.uniqueKey(["podcastID", "guid"])
            }
            // `episodes` lists a podcast newest first; `new` looks across podcasts.
            try db.create(index: "episode_by_date", on: "episode", columns: ["podcastID", "published"])
            try db.create(index: "episode_new", on: "episode", columns: ["isNew"], condition: Column("isNew") == true)
            try db.create(table: "setting") { t in
                t.primaryKey("name", .text)
                t.column("value", .text).notNull()
            }
        }
        // Listening: per-podcast rules for auto-download and cleanup.
        migrator.registerMigration("v2") { db in
            try db.alter(table: "podcast") { t in
                t.add(column: "autodownload", .boolean).notNull().defaults(to: false)
                t.add(column: "keep", .integer)
            }
        }
        // Background downloads: what finished or failed while no shell watched.
        migrator.registerMigration("v3") { db in
            try db.create(table: "awayEvent") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("at", .datetime).notNull()
                t.column("label", .text).notNull()
                t.column("path", .text).notNull()
                t.column("failed", .boolean).notNull()
                t.column("message", .text)
                t.column("reported", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v4") { db in try SearchIndex.create(db) }
        // Listening: the play queue, and a podcast's own speed.
        migrator.registerMigration("v5") { db in
            try db.create(table: "queueItem") { t in
                t.primaryKey("episodeID", .integer).references("episode", onDelete: .cascade)
                // The order: positions are shown counted from 1, stored sparse.
                t.column("rank", .double).notNull().indexed()
            }
            try db.alter(table: "podcast") { t in t.add(column: "speed", .double) }
        }
        // Private feeds: a user name and password kept apart from the feed URL,
        // gone with the subscription.
        migrator.registerMigration("v6") { db in
            try db.create(table: "feedCredential") { t in
                t.primaryKey("podcastID", .integer).references("podcast", onDelete: .cascade)
                t.column("user", .text).notNull()
                t.column("password", .text).notNull()
            }
        }
        // Sync: when each episode's play state changed, the outbox of actions and
        // subscription changes, and where syncs left off.
        migrator.registerMigration("v7") { db in try createSyncTables(db) }
        // Subscriptions other devices made, remembered until followed.
        migrator.registerMigration("v8") { db in try createSyncFollows(db) }
        // Where each cue of a transcript paragraph starts, for a hit's time.
        migrator.registerMigration("v9") { db in
            try db.alter(table: "transcriptLine") { t in t.add(column: "cues", .text) }
        }
        // A failed update kept as its kind and data (JSON), not as a sentence.
        migrator.registerMigration("v10") { db in
            try db.alter(table: "podcast") { t in t.add(column: "lastFailure", .text) }
        }
        // Listening, part 3: the podcasts' own listening settings, the history of
        // plays and the bookmarks.
        migrator.registerMigration("v11") { db in try createListeningTables(db) }
        // Show notes with links kept as allow-listed markup, for the web page.
        migrator.registerMigration("v12") { db in
            try db.alter(table: "episode") { t in t.add(column: "notes", .text) }
        }
        // Listening, part 4: smart playlists, saved as their filter words, and
        // the clips made.
        migrator.registerMigration("v13") { db in
            try StoredPlaylist.create(db)
            try StoredClip.create(db)
        }
        return migrator
    }

    /// One transaction on GRDB's writer queue (never on Swift's cooperative pool:
    /// waiting for another process's lock blocks a thread).
    func write<T: Sendable>(
        _ operation: String,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(LibraryError) -> T {
        if readOnlyForFullDisk { throw LibraryError.diskFull(operation, path: path) }
        do {
            return try await database.write(body)
        } catch {
            throw LibraryError(operation, path: path, error)
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(LibraryError) -> T {
        do {
            return try await database.read(body)
        } catch {
            throw LibraryError("read", path: path, error)
        }
    }

    // MARK: Subscriptions

    /// The subscription to `feedURL`, made if there is none (then `created`).
    public func subscribe(
        feedURL: URL,
        title: String,
        itunesID: Int64? = nil
    ) async throws(LibraryError) -> (podcast: StoredPodcast, created: Bool) {
        try await write("write to") { db in
            if var existing = try StoredPodcast.filter(StoredPodcast.Columns.feedURL == feedURL.absoluteString)
                .fetchOne(db)
            {
                if existing.itunesID == nil, let itunesID {
                    existing.itunesID = itunesID
                    try existing.update(db)
                }
                return (existing, false)
            }
            var podcast = StoredPodcast(feedURL: feedURL.absoluteString, title: title, itunesID: itunesID)
            try podcast.insert(db)
            try Self.recordSubscription(feedURL.absoluteString, subscribed: true, at: Date(), db)
            return (podcast, true)
        }
    }

    /// Whether the library and the WAL files it has are private already (as
    /// ``makePrivate(_:)`` leaves them), told without opening any of them.
    private static func isPrivate(_ path: String) -> Bool {
        [path, path + "-wal", path + "-shm"].allSatisfy { file in
            var status = stat()
            guard lstat(file, &status) == 0 else { return errno == ENOENT && file != path }
            return status.st_mode & S_IFMT == S_IFREG && status.st_mode & 0o777 == 0o600
        }
    }

    /// The library holds feed passwords and the Podcast Index secret: its file
    /// (and SQLite's `-wal` and `-shm` beside it, which take the file's mode) is
    /// made 0600 before SQLite creates it, a folder made for it is 0700, and an
    /// older library of looser mode is narrowed.
    private static func makePrivate(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(
                atPath: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { _ = Glibc.close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for sidecar in [path + "-wal", path + "-shm"] { chmod(sidecar, 0o600) }
    }

    /// Removes a subscription and its episodes. Its number is never given again
    /// (AUTOINCREMENT); a failed `subscribe` uses none, as it stores nothing.
    public func unsubscribe(_ id: Int64) async throws(LibraryError) {
        _ = try await write("write to") { db in
            guard let podcast = try StoredPodcast.fetchOne(db, key: id) else { return }
            try podcast.delete(db)
            try Self.recordSubscription(podcast.feedURL, subscribed: false, at: Date(), db)
        }
    }

    /// Every subscription in the order of its number, without counts (cheap: for
    /// looking one up, or at start).
    public func subscriptions() async throws(LibraryError) -> [StoredPodcast] {
        try await read { db in try StoredPodcast.fetchAllByPosition(db, StoredPodcast.order(StoredPodcast.Columns.id)) }
    }

    /// Every subscription in the order of its number, with its counts, in one query.
    public func podcasts() async throws(LibraryError) -> [PodcastSummary] {
        try await read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT podcast.*,
                        (SELECT COUNT(*) FROM episode WHERE podcastID = podcast.id) AS episodeCount,
                        (SELECT COUNT(*) FROM episode WHERE podcastID = podcast.id AND isNew) AS newCount,
                        (SELECT COUNT(*) FROM episode WHERE podcastID = podcast.id AND downloaded) AS downloadedCount
                    FROM podcast ORDER BY id
                    """
            )
            return try StoredPodcast.decodeAll(rows) { podcast, row in
                PodcastSummary(
                    podcast: podcast,
                    episodeCount: row["episodeCount"],
                    newCount: row["newCount"],
                    downloadedCount: row["downloadedCount"]
                )
            }
        }
    }

    /// The GUID and Apple track ID of every episode of these podcasts, by podcast:
    /// what its download's file name derives from.
    public func episodeKeys(of podcastIDs: [Int64]) async throws(LibraryError)
        -> [Int64: [(guid: String, trackID: Int64?)]]
    {
        try await read { db in
            var keys: [Int64: [(guid: String, trackID: Int64?)]] = [:]
            let statement = try db.cachedStatement(sql: "SELECT guid, trackID FROM episode WHERE podcastID = ?")
            for id in podcastIDs {
                let rows = try Row.fetchCursor(statement, arguments: [id])
                while let row = try rows.next() {
                    keys[id, default: []].append((row["guid"], row["trackID"]))
                }
            }
            return keys
        }
    }

    /// The subscriptions' numbers and titles in `podcasts` order, without the
    /// counts (for Tab, read before every prompt).
    public func podcastTitles() async throws(LibraryError) -> [(number: Int64, title: String)] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, title FROM podcast ORDER BY id").map { ($0["id"], $0["title"]) }
        }
    }

    public func podcast(_ id: Int64) async throws(LibraryError) -> StoredPodcast? {
        try await read { db in try StoredPodcast.fetchOne(db, key: id) }
    }

    public func podcast(feedURL: URL) async throws(LibraryError) -> StoredPodcast? {
        try await read { db in
            try StoredPodcast.filter(StoredPodcast.Columns.feedURL == feedURL.absoluteString).fetchOne(db)
        }
    }

    /// A podcast's episodes, newest first; without their descriptions unless asked
    /// (a podcast of thousands of episodes carries megabytes of them, and only
    /// `show` needs one: ``summary(of:)``).
    public func episodes(of podcastID: Int64, withSummaries: Bool = false) async throws(LibraryError) -> [StoredEpisode]
    {
        try await read { db in
            var request = StoredEpisode.filter(StoredEpisode.Columns.podcastID == podcastID)
                .order(StoredEpisode.listedOrder)
            if !withSummaries {
                request = request.select(try StoredEpisode.selectionWithoutSummary(db))
            }
            return try StoredEpisode.fetchAllByPosition(db, request)
        }
    }

    /// The row ids of podcast `podcastID`'s episodes in the order of
    /// ``episodes(of:withSummaries:)``: 8 bytes an episode, from which a list reads
    /// any page at once (``episodes(withIDs:)``), as it was when they were listed.
    public func episodeIDs(of podcastID: Int64) async throws(LibraryError) -> [Int64] {
        try await read { db in
            try Int64.fetchAll(
                db,
                sql: "SELECT id FROM episode WHERE podcastID = ? ORDER BY published DESC, id DESC",
                arguments: [podcastID]
            )
        }
    }

    /// The episodes with these row ids, in that order, without their descriptions;
    /// one deleted since is left out. Read at once, blocking the caller: for a list
    /// read a page at a time from a collection's subscript, where a page of a few
    /// hundred takes a millisecond.
    public func episodes(withIDs ids: [Int64]) throws(LibraryError) -> [StoredEpisode] {
        do {
            let found = try database.read { db in
                try StoredEpisode.fetchAllByPosition(
                    db,
                    StoredEpisode.filter(ids: ids).select(try StoredEpisode.selectionWithoutSummary(db))
                )
            }
            let byID = Dictionary(found.map { ($0.id ?? -1, $0) }) { first, _ in first }
            return ids.compactMap { byID[$0] }
        } catch {
            throw LibraryError("read", path: path, error)
        }
    }

    /// One episode's description.
    public func summary(of episodeID: Int64) async throws(LibraryError) -> String? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT summary FROM episode WHERE id = ?", arguments: [episodeID])
        }
    }

    /// The new episodes of every subscription, newest first, without their
    /// descriptions (thousands of new episodes carry megabytes of them; `show`
    /// reads one: ``summary(of:)``).
    public func newEpisodes() async throws(LibraryError) -> [(podcast: StoredPodcast, episode: StoredEpisode)] {
        try await read { db in
            let episodes = try StoredEpisode.fetchAllByPosition(
                db,
                StoredEpisode.filter(StoredEpisode.Columns.isNew == true)
                    .select(try StoredEpisode.selectionWithoutSummary(db))
                    .order(StoredEpisode.listedOrder)
            )
            // Their podcasts by a subquery: a filter of up to every subscription's
            // key was SQL of thousands of terms to make (4% of `new` on 2,000).
            let podcastIDs = StoredEpisode.filter(StoredEpisode.Columns.isNew == true)
                .select(StoredEpisode.Columns.podcastID)
            let podcasts = try StoredPodcast.fetchAllByPosition(
                db,
                StoredPodcast.filter(podcastIDs.contains(StoredPodcast.Columns.id))
            )
            let byID = Dictionary(uniqueKeysWithValues: podcasts.map { ($0.id!, $0) })
            // Sized at once: each pair holds a podcast and an episode, 10,000 new
            // ones some megabytes, which growing by doubling copied twice over.
            var pairs: [(podcast: StoredPodcast, episode: StoredEpisode)] = []
            pairs.reserveCapacity(episodes.count)
            for episode in episodes {
                if let podcast = byID[episode.podcastID] { pairs.append((podcast, episode)) }
            }
            return pairs
        }
    }

    /// What `new`'s table shows of each new episode, in the order (and so the
    /// numbers n1, n2...) of ``newEpisodes()``: four columns of a join. On 10,000
    /// new episodes, sorting and decoding the whole episodes and podcasts was most
    /// of the time of `new` that a person reads.
    public func newEpisodeLines() async throws(LibraryError) -> [NewEpisodeLine] {
        try await read { db in
            // `isNew = 1`, the condition of the partial index episode_new.
            try NewEpisodeLine.fetchAllByPosition(
                db,
                SQLRequest<Row>(
                    sql: """
                        SELECT podcast.title AS podcastTitle, episode.title, episode.published, episode.seconds
                        FROM episode JOIN podcast ON podcast.id = episode.podcastID
                        WHERE episode.isNew = 1 ORDER BY episode.published DESC, episode.id DESC
                        """
                )
            )
        }
    }

    // MARK: Updates

    /// Stores a successful fetch of a feed: podcast details, validators, new and
    /// changed episodes. Episodes arriving after the podcast's first update are new.
    /// Returns how many arrived.
    @discardableResult
    public func store(
        _ feed: Feed,
        for podcastID: Int64,
        validators: (etag: String?, lastModified: String?),
        movedTo: URL? = nil,
        trackIDs: [String: Int64] = [:],
        at now: Date = Date()
    ) async throws(LibraryError) -> Int {
        try await write("write to") { db in
            guard var podcast = try StoredPodcast.fetchOne(db, key: podcastID) else { return 0 }
            let arrived = try Self.store(feed, in: &podcast, validators: validators, trackIDs: trackIDs, now: now, db)
            if let movedTo { _ = try Self.move(podcastID, to: movedTo.absoluteString, db) }
            return arrived
        }
    }

    /// A new subscription with its feed's first read, in one transaction: a
    /// `subscribe` interrupted (Ctrl-C, a closed `mcp`, kill -9) or refused (a full
    /// disk) before the commit leaves no subscription behind. When another feedsh
    /// subscribed to `feedURL` meanwhile, that subscription stands and `created` is
    /// false. Returns the podcast as stored and how many episodes arrived.
    public func subscribe(
        feedURL: URL,
        title: String,
        itunesID: Int64? = nil,
        credentials: FeedCredentials? = nil,
        firstRead feed: Feed,
        validators: (etag: String?, lastModified: String?),
        movedTo: URL? = nil,
        trackIDs: [String: Int64] = [:],
        at now: Date = Date()
    ) async throws(LibraryError) -> (podcast: StoredPodcast, created: Bool, arrived: Int) {
        try await subscribe(
            feedURL: feedURL,
            title: title,
            itunesID: itunesID,
            credentials: credentials,
            reading: Self.reading(feed),
            validators: validators,
            movedTo: { _ in movedTo },
            trackIDs: trackIDs,
            at: now
        )
    }

    /// A first read of a feed already parsed whole, for
    /// ``subscribe(feedURL:title:itunesID:credentials:reading:validators:movedTo:trackIDs:at:)``:
    /// its items stored at once, the feed returned without them.
    public static func reading(_ feed: Feed) -> @Sendable (_ store: ([FeedItem]) throws -> Void) throws -> Feed {
        { store in
            try store(feed.items)
            var rest = feed
            rest.items = []
            return rest
        }
    }

    /// The same, with the feed read inside the transaction: `read` parses it,
    /// handing its items to `store` in batches as they come (stored there and
    /// then, so that a feed of 200,000 items is never held), and returns it
    /// without them; `movedTo` says, of that feed, where it moved. Whatever
    /// `read` throws rolls everything back (and comes out as a library error:
    /// a caller that needs it keeps it too).
    public func subscribe(
        feedURL: URL,
        title: String,
        itunesID: Int64? = nil,
        credentials: FeedCredentials? = nil,
        reading read: @escaping @Sendable (_ store: ([FeedItem]) throws -> Void) throws -> Feed,
        validators: (etag: String?, lastModified: String?),
        movedTo: @escaping @Sendable (Feed) -> URL?,
        trackIDs: [String: Int64] = [:],
        at now: Date = Date()
    ) async throws(LibraryError) -> (podcast: StoredPodcast, created: Bool, arrived: Int) {
        try await write("write to") { db in
            if let existing = try StoredPodcast.filter(StoredPodcast.Columns.feedURL == feedURL.absoluteString)
                .fetchOne(db)
            {
                return (existing, false, 0)
            }
            var podcast = StoredPodcast(feedURL: feedURL.absoluteString, title: title, itunesID: itunesID)
            try podcast.insert(db)
            let id = podcast.id ?? -1
            try Self.recordSubscription(feedURL.absoluteString, subscribed: true, at: now, db)
            if let credentials {
                try FeedCredentialRecord(podcastID: id, user: credentials.user, password: credentials.password)
                    .upsert(db)
            }
            var arrived = 0
            let feed = try read { items in
                arrived += try Self.upsert(items, podcastID: id, markNew: false, trackIDs: trackIDs, now: now, db)
            }
            arrived += try Self.store(feed, in: &podcast, validators: validators, trackIDs: trackIDs, now: now, db)
            if let moved = movedTo(feed) { _ = try Self.move(id, to: moved.absoluteString, db) }
            return (try StoredPodcast.fetchOne(db, key: id) ?? podcast, true, arrived)
        }
    }

    /// Writes a fetched feed into `podcast`'s row and episodes (inside the
    /// caller's transaction). Episodes arriving after the podcast's first update
    /// are new. Returns how many arrived.
    private static func store(
        _ feed: Feed,
        in podcast: inout StoredPodcast,
        validators: (etag: String?, lastModified: String?),
        trackIDs: [String: Int64],
        now: Date,
        _ db: Database
    ) throws -> Int {
        let arrived = try upsert(
            feed.items,
            podcastID: podcast.id ?? -1,
            markNew: podcast.updateCount > 0,
            trackIDs: trackIDs,
            now: now,
            db
        )
        if !feed.title.isEmpty { podcast.title = feed.title }
        podcast.author = feed.author ?? podcast.author
        podcast.summary = feed.description ?? podcast.summary
        podcast.artworkURL = feed.artworkURL?.absoluteString ?? podcast.artworkURL
        podcast.podcastGUID = feed.podcastGUID ?? podcast.podcastGUID
        podcast.etag = validators.etag
        podcast.lastModified = validators.lastModified
        podcast.updated = now
        podcast.updateCount += 1
        podcast.lastError = nil
        podcast.lastFailure = nil
        podcast.gone = false
        try podcast.update(db)
        return arrived
    }

    /// Stores a batch of a feed's items while the feed is still being parsed (on the
    /// parser's thread, not Swift's cooperative pool: this waits for the write).
    /// Episodes are new when `markNew` (the podcast had been updated before).
    /// Returns how many arrived.
    public func storeItems(
        _ items: [FeedItem],
        podcastID: Int64,
        markNew: Bool,
        trackIDs: [String: Int64] = [:],
        at now: Date = Date()
    ) throws(LibraryError) -> Int {
        if readOnlyForFullDisk { throw LibraryError.diskFull("write to", path: path) }
        do {
            return try database.write { db in
                try Self.upsert(items, podcastID: podcastID, markNew: markNew, trackIDs: trackIDs, now: now, db)
            }
        } catch {
            throw LibraryError("write to", path: path, error)
        }
    }

    /// How many items ``upsert(_:podcastID:markNew:trackIDs:now:_:)`` compares with
    /// the library at a time.
    static let upsertChunk = 500

    /// Inserts the items not yet stored and refreshes the others, keeping what the
    /// listener did; returns how many were inserted.
    ///
    /// A chunk of items at a time: the stored rows of its GUIDs are read (those
    /// this transaction inserted from earlier chunks too, so an item the feed
    /// repeats refreshes the first), so that memory follows the chunk and not the
    /// feed: a 200,000-item feed held every stored row it made (258 MB).
    private static func upsert(
        _ items: [FeedItem],
        podcastID: Int64,
        markNew: Bool,
        trackIDs: [String: Int64],
        now: Date,
        _ db: Database
    ) throws -> Int {
        var arrived = 0
        for start in stride(from: 0, to: items.count, by: upsertChunk) {
            let chunk = items[start..<min(start + upsertChunk, items.count)]
            let existing = try StoredEpisode.fetchAllByPosition(
                db,
                StoredEpisode.filter(
                    StoredEpisode.Columns.podcastID == podcastID
                        && chunk.map(\.guid).contains(StoredEpisode.Columns.guid)
                )
            )
            var byGUID = Dictionary(existing.map { ($0.guid, $0) }, uniquingKeysWith: { first, _ in first })
            for item in chunk {
                if var stored = byGUID[item.guid] {
                    let before = stored
                    stored.refresh(from: item)
                    if stored.trackID == nil { stored.trackID = trackIDs[item.guid] }
                    if stored != before {
                        try stored.update(db)
                        byGUID[item.guid] = stored
                    }
                } else {
                    var stored = StoredEpisode(item, podcastID: podcastID, isNew: markNew, seen: now)
                    stored.trackID = trackIDs[item.guid]
                    try stored.insert(db)
                    byGUID[item.guid] = stored
                    arrived += 1
                }
            }
        }
        return arrived
    }

    /// A 304: nothing changed but the time of the update.
    public func storeUnchanged(_ podcastID: Int64, movedTo: URL? = nil, at now: Date = Date())
        async throws(LibraryError)
    {
        _ = try await write("write to") { db in
            try db.execute(
                sql: """
                    UPDATE podcast SET updated = ?, updateCount = updateCount + 1, lastError = NULL, lastFailure = NULL
                    WHERE id = ?
                    """,
                arguments: [now, podcastID]
            )
            // A feed that moved is kept at its new address whatever that answered
            // (a 304 there still says the move was permanent).
            if let movedTo { try Self.move(podcastID, to: movedTo.absoluteString, db) }
        }
    }

    /// A failed update, recorded on its podcast as what failed and its data (a
    /// front end describes it when it shows it).
    public func storeFailure(_ podcastID: Int64, _ failure: UpdateFailure) async throws(LibraryError) {
        _ = try await write("write to") { db in
            guard var podcast = try StoredPodcast.fetchOne(db, key: podcastID) else { return }
            podcast.lastFailure = failure
            podcast.lastError = nil
            podcast.gone = false
            try podcast.update(db)
        }
    }

    /// The feed answered 410 Gone: recorded on its podcast.
    public func storeGone(_ podcastID: Int64) async throws(LibraryError) {
        _ = try await write("write to") { db in
            try db.execute(
                sql: "UPDATE podcast SET lastError = NULL, lastFailure = NULL, gone = 1 WHERE id = ?",
                arguments: [podcastID]
            )
        }
    }

    // MARK: Episode state

    /// What `mark` does.
    public enum Mark: String, Sendable, CaseIterable {
        case played
        case unplayed
        /// Not new any more.
        case old
    }

    /// Marks episodes; played ones are no longer new and start from the beginning
    /// next time. Played and unplayed record one sync action an episode (`play` to
    /// the end, `new`), in the same transaction.
    public func mark(_ episodeIDs: [Int64], _ mark: Mark, at now: Date = Date()) async throws(LibraryError) {
        _ = try await write("write to") { db in
            let changed = StoredEpisode.Columns.stateChanged.set(to: now)
            let assignments: [ColumnAssignment] =
                switch mark {
                case .played:
                    [
                        StoredEpisode.Columns.played.set(to: true), StoredEpisode.Columns.isNew.set(to: false),
                        StoredEpisode.Columns.position.set(to: 0), changed,
                    ]
                case .unplayed: [StoredEpisode.Columns.played.set(to: false), changed]
                case .old: [StoredEpisode.Columns.isNew.set(to: false)]
                }
            try StoredEpisode.filter(keys: episodeIDs).updateAll(db, assignments)
            switch mark {
            case .played:
                // Played means done: it leaves the play queue, however it was played.
                try QueueItem.filter(keys: episodeIDs).deleteAll(db)
                try Self.recordActions(.play, on: episodeIDs, at: now, db)
            case .unplayed: try Self.recordActions(.new, on: episodeIDs, at: now, db)
            case .old: break
            }
        }
    }

    /// Records where listening to an episode stopped. With `startedAt` (where that
    /// playback began), playback ended there and a sync `play` action is recorded;
    /// without, it is a save while playing, which only moves the position.
    public func savePosition(
        _ episodeID: Int64,
        seconds: Double,
        startedAt started: Double? = nil,
        at now: Date = Date()
    ) async throws(LibraryError) {
        _ = try await write("write to") { db in
            try StoredEpisode.filter(key: episodeID).updateAll(
                db,
                StoredEpisode.Columns.position.set(to: max(0, seconds)),
                StoredEpisode.Columns.stateChanged.set(to: now)
            )
            if let started {
                try Self.recordActions(.play, on: [episodeID], span: (started, seconds), at: now, db)
            }
        }
    }

    /// One episode, with its description.
    public func episode(_ id: Int64) async throws(LibraryError) -> StoredEpisode? {
        try await read { db in try StoredEpisode.fetchOne(db, key: id) }
    }

    /// The episode of subscription `podcast` whose feed calls it `guid`.
    public func episode(podcast: Int64, guid: String) async throws(LibraryError) -> StoredEpisode? {
        try await read { db in
            try StoredEpisode
                .filter(StoredEpisode.Columns.podcastID == podcast && StoredEpisode.Columns.guid == guid)
                .fetchOne(db)
        }
    }

    /// Records that an episode's file is complete (or deleted), with the sync
    /// action that says so (`download`, `delete`).
    public func markDownloaded(_ episodeID: Int64, _ downloaded: Bool = true, at now: Date = Date())
        async throws(LibraryError)
    {
        _ = try await write("write to") { db in
            try StoredEpisode.filter(key: episodeID).updateAll(db, StoredEpisode.Columns.downloaded.set(to: downloaded))
            try Self.recordActions(downloaded ? .download : .delete, on: [episodeID], at: now, db)
        }
    }
}
