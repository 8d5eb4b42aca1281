import Foundation
import GRDB

/// A smart playlist's filter: which library episodes it holds, in what order,
/// how many. Saved as its words and evaluated each time it is used, so that
/// "unplayed, under 20 minutes, newest first" follows the library.
///
/// Words of different kinds all apply; `podcast:` words add subscriptions (an
/// episode of any of them). `unplayed` includes episodes in progress.
public struct PlaylistFilter: Sendable, Equatable, CustomStringConvertible {
    /// What an episode's listening and download state must be.
    public enum State: String, Sendable, CaseIterable {
        case unplayed, played
        case inProgress = "in-progress"
        case downloaded, new
    }

    /// The order of the episodes.
    public enum Sort: String, Sendable, CaseIterable {
        case newest, oldest, shortest, longest
    }

    /// Published on or after: a number of days before the evaluation, or a day.
    public enum Since: Sendable, Equatable {
        case days(Int)
        /// `YYYY-MM-DD`, the start of that day in UTC.
        case day(String)
    }

    public var states: [State] = []
    /// Subscription numbers (P of `P:E`).
    public var podcasts: [Int64] = []
    /// Longer than, in seconds.
    public var longer: Double?
    /// Shorter than, in seconds.
    public var shorter: Double?
    public var since: Since?
    /// Words the `find` index must hold for the episode (title, show notes or
    /// transcript), as `find` takes them.
    public var words: [String] = []
    public var sort: Sort = .newest
    public var limit: Int?

    public init() {}

    /// The filter words, each named in ``allowedWords`` (case does not matter).
    public static func parse(_ words: [String]) -> Result<PlaylistFilter, PlaylistFilterError> {
        var filter = PlaylistFilter()
        guard !words.isEmpty else { return .failure(.empty) }
        for word in words {
            let lower = word.lowercased()
            if let state = State(rawValue: lower) {
                if !filter.states.contains(state) { filter.states.append(state) }
                continue
            }
            guard let colon = word.firstIndex(of: ":") else { return .failure(.unknown(word)) }
            let key = word[..<colon].lowercased()
            let value = String(word[word.index(after: colon)...])
            guard !value.isEmpty else { return .failure(.badValue(word, expected: expected(key))) }
            switch key {
            case "podcast":
                guard let number = Int64(value), number > 0 else {
                    return .failure(.badValue(word, expected: expected(key)))
                }
                if !filter.podcasts.contains(number) { filter.podcasts.append(number) }
            case "longer", "shorter":
                guard let seconds = ListeningTime.seconds(value), seconds > 0 else {
                    return .failure(.badValue(word, expected: expected(key)))
                }
                if key == "longer" { filter.longer = seconds } else { filter.shorter = seconds }
            case "since":
                if value.hasSuffix("d"), let days = Int(value.dropLast()), (1...36_500).contains(days) {
                    filter.since = .days(days)
                } else if Self.day(value) != nil {
                    filter.since = .day(value)
                } else {
                    return .failure(.badValue(word, expected: expected(key)))
                }
            case "words":
                filter.words += value.split(separator: " ").map(String.init)
            case "sort":
                guard let sort = Sort(rawValue: value.lowercased()) else {
                    return .failure(.badValue(word, expected: expected(key)))
                }
                filter.sort = sort
            case "limit":
                guard let limit = Int(value), (1...10_000).contains(limit) else {
                    return .failure(.badValue(word, expected: expected(key)))
                }
                filter.limit = limit
            default:
                return .failure(.unknown(word))
            }
        }
        if let longer = filter.longer, let shorter = filter.shorter, longer >= shorter {
            return .failure(.contradictory("longer:\(Int(longer))s is not shorter than shorter:\(Int(shorter))s"))
        }
        return .success(filter)
    }

    /// Every word a filter takes, for help and errors.
    public static let allowedWords =
        "unplayed, played, in-progress, downloaded, new, podcast:P, longer:20m, shorter:20m, "
        + "since:7d or since:2026-11-01, words:TEXT, sort:newest|oldest|shortest|longest, limit:N"

    /// What a key's value must be.
    static func expected(_ key: String) -> String {
        switch key {
        case "podcast": "a subscription number ('podcasts' lists them)"
        case "longer", "shorter": "a length such as 20m, 1h30m or 90s"
        case "since": "a number of days (7d) or a day (2026-11-01)"
        case "words": "words to find"
        case "sort": "newest, oldest, shortest or longest"
        case "limit": "a number from 1 to 10000"
        default: allowedWords
        }
    }

    /// The filter as words `parse` takes back, in a fixed order.
    public var description: String {
        var words = states.map(\.rawValue) + podcasts.map { "podcast:\($0)" }
        if let longer { words.append("longer:" + ListeningTime.text(longer)) }
        if let shorter { words.append("shorter:" + ListeningTime.text(shorter)) }
        switch since {
        case .days(let days): words.append("since:\(days)d")
        case .day(let day): words.append("since:" + day)
        case nil: break
        }
        words += self.words.map { "words:" + $0 }
        if sort != .newest { words.append("sort:" + sort.rawValue) }
        if let limit { words.append("limit:\(limit)") }
        return words.joined(separator: " ")
    }

    /// The start (UTC) of day `text` (`YYYY-MM-DD`), or nil when it is none.
    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]),
            let day = Int(parts[2]), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    /// The earliest publication date it takes, evaluated at `now`.
    func earliest(at now: Date) -> Date? {
        switch since {
        case .days(let days): now.addingTimeInterval(-Double(days) * 86_400)
        case .day(let text): Self.day(text)
        case nil: nil
        }
    }
}

/// Why filter words were refused; each names the word and what would do.
public enum PlaylistFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case unknown(String)
    case badValue(String, expected: String)
    case contradictory(String)

    public var description: String {
        switch self {
        case .empty: "a playlist needs filter words: \(PlaylistFilter.allowedWords)"
        case .unknown(let word): "'\(word)' is not a filter word; they are \(PlaylistFilter.allowedWords)"
        case .badValue(let word, let expected): "'\(word)': \(word.prefix { $0 != ":" }) takes \(expected)"
        case .contradictory(let why): "nothing could match: \(why)"
        }
    }
}

/// A saved playlist: its name and filter words.
public struct StoredPlaylist: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "playlist"
    public var name: String
    /// The filter's words (``PlaylistFilter/description``).
    public var filter: String
    public var created: Date

    public init(name: String, filter: PlaylistFilter, created: Date = Date()) {
        self.name = name
        self.filter = filter.description
        self.created = created
    }

    /// Its filter, read back; nil if the words no longer parse (a newer feedsh's).
    public var parsedFilter: PlaylistFilter? {
        try? PlaylistFilter.parse(filter.split(separator: " ").map(String.init)).get()
    }

    /// A name: 1 to 40 letters, digits, `-` or `_`, not a word `playlist` takes.
    public static func validName(_ name: String) -> Bool {
        (1...40).contains(name.count) && !["add", "rm"].contains(name.lowercased())
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    || $0 == "_"
            }
    }

    static func create(_ db: Database) throws {
        try db.create(table: databaseTableName) { t in
            t.primaryKey("name", .text).collate(.nocase)
            t.column("filter", .text).notNull()
            t.column("created", .datetime).notNull()
        }
    }
}

extension Library {
    /// The saved playlists, by name.
    public func playlists() async throws(LibraryError) -> [StoredPlaylist] {
        try await read { db in try StoredPlaylist.order(Column("name").collating(.nocase)).fetchAll(db) }
    }

    /// The playlist named `name` (case does not matter), or nil.
    public func playlist(named name: String) async throws(LibraryError) -> StoredPlaylist? {
        try await read { db in try StoredPlaylist.fetchOne(db, key: name) }
    }

    /// Saves a playlist, replacing one of the same name; true when it replaced one.
    @discardableResult
    public func savePlaylist(_ playlist: StoredPlaylist) async throws(LibraryError) -> Bool {
        try await write("write to") { db in
            let replaced = try StoredPlaylist.deleteOne(db, key: playlist.name)
            try playlist.insert(db)
            return replaced
        }
    }

    /// Removes a playlist; false when there was none of that name.
    public func removePlaylist(named name: String) async throws(LibraryError) -> Bool {
        try await write("write to") { db in try StoredPlaylist.deleteOne(db, key: name) }
    }

    /// The episodes `filter` holds now, in its order, each with its
    /// subscription and listed number (`P:E`). `words` search the `find`
    /// index; a word list that is no query holds nothing.
    public func episodes(
        matching filter: PlaylistFilter,
        at now: Date = Date()
    ) async throws(LibraryError) -> [ResolvedLibraryEpisode] {
        guard let selection = filter.selection(at: now) else { return [] }
        return try await read { db in
            let episodes = try StoredEpisode.fetchAllByPosition(
                db,
                SQLRequest<StoredEpisode>(sql: selection.sql, arguments: selection.arguments)
            )
            let podcasts = try StoredPodcast.fetchAllByPosition(
                db,
                StoredPodcast.filter(keys: Set(episodes.map(\.podcastID)))
            )
            let byID = Dictionary(uniqueKeysWithValues: podcasts.map { ($0.id!, $0) })
            return try episodes.compactMap { episode in
                guard let podcast = byID[episode.podcastID], let id = episode.id else { return nil }
                return ResolvedLibraryEpisode(
                    podcast: podcast,
                    stored: episode,
                    episodeNumber: try Self.listedNumber(of: id, db)
                )
            }
        }
    }

    /// How many episodes `filter` holds now, counted by SQLite: what
    /// `playlists` shows, without finding each one's `P:E`.
    public func count(matching filter: PlaylistFilter, at now: Date = Date()) async throws(LibraryError) -> Int {
        guard let selection = filter.selection(at: now) else { return 0 }
        return try await read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(selection.sql))", arguments: selection.arguments) ?? 0
        }
    }
}

extension PlaylistFilter {
    /// The query of the episodes it holds at `now`, in its order and limit; nil
    /// when its `words` are no query (it then holds nothing).
    func selection(at now: Date) -> (sql: String, arguments: StatementArguments)? {
        let query = words.isEmpty ? nil : try? SearchQuery(words)
        if !words.isEmpty, query == nil { return nil }
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        for state in states {
            switch state {
            case .unplayed: conditions.append("e.played = 0")
            case .played: conditions.append("e.played = 1")
            case .inProgress: conditions.append("e.played = 0 AND e.position > 0")
            case .downloaded: conditions.append("e.downloaded = 1")
            case .new: conditions.append("e.isNew = 1")
            }
        }
        if !podcasts.isEmpty {
            conditions.append("e.podcastID IN (\(podcasts.map { _ in "?" }.joined(separator: ",")))")
            arguments += podcasts
        }
        if let longer {
            conditions.append("e.seconds > ?")
            arguments.append(longer)
        }
        if let shorter {
            conditions.append("e.seconds < ?")
            arguments.append(shorter)
        }
        if let earliest = earliest(at: now) {
            conditions.append("e.published >= ?")
            arguments.append(earliest)
        }
        if let query {
            conditions.append(
                """
                e.id IN (SELECT rowid FROM episodeText WHERE episodeText MATCH ?
                    UNION SELECT l.transcriptID FROM transcriptText t JOIN transcriptLine l ON l.id = t.rowid
                    WHERE transcriptText MATCH ?)
                """
            )
            arguments += [query.expression, query.expression]
        }
        let order =
            switch sort {
            case .newest: "e.published IS NULL, e.published DESC, e.id DESC"
            case .oldest: "e.published IS NULL, e.published, e.id"
            case .shortest: "e.seconds IS NULL, e.seconds, e.published DESC"
            case .longest: "e.seconds IS NULL, e.seconds DESC, e.published DESC"
            }
        let filter = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        return (
            "SELECT e.* FROM episode e WHERE \(filter) ORDER BY \(order)" + (limit.map { " LIMIT \($0)" } ?? ""),
            StatementArguments(arguments)
        )
    }
}
