import FeedKit
import Foundation
import GRDB

/// A subscription, as the library stores it.
public struct StoredPodcast: Codable, Sendable, Equatable, Identifiable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "podcast"

    public var id: Int64?
    public var feedURL: String
    public var title: String
    public var author: String?

    /// Its subscription number (`podcasts`, `podcast P`, `P:E`): given at
    /// `subscribe` and kept until `unsubscribe`. It is the row's id, and the table's
    /// key is AUTOINCREMENT, so SQLite never gives a number twice, even after the
    /// highest is deleted.
    public var number: Int { Int(id ?? 0) }
    public var summary: String?
    public var artworkURL: String?
    /// The iTunes collection ID, when the podcast came from Apple's directory.
    public var itunesID: Int64?
    public var podcastGUID: String?
    /// `ETag` and `Last-Modified` of the last full answer, for conditional requests.
    public var etag: String?
    public var lastModified: String?
    public var subscribed: Date
    /// When the last update succeeded.
    public var updated: Date?
    /// Updates that succeeded: episodes arriving after the first are new.
    public var updateCount: Int
    /// Why the last update failed, in words, as libraries before schema 10 kept
    /// it; nil after a success.
    public var lastError: String?
    /// What the last update failed with: its kind and data; nil after a success.
    public var lastFailure: UpdateFailure?
    /// The feed answered 410 Gone.
    public var gone: Bool
    /// `update` downloads this podcast's new episodes.
    public var autodownload: Bool
    /// Cleanup keeps this many of its newest downloaded files and deletes the played
    /// ones beyond them; nil keeps everything.
    public var keep: Int?
    /// Its own playback speed, over the `speed` setting (`set podcast P speed X`).
    public var speed: Double?

    public init(feedURL: String, title: String, itunesID: Int64? = nil, subscribed: Date = Date()) {
        self.feedURL = feedURL
        self.title = title
        self.itunesID = itunesID
        self.subscribed = subscribed
        self.updateCount = 0
        self.gone = false
        self.autodownload = false
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Its columns, one for each stored property; `Int` raw values in this order
    /// make their positions (``ColumnPositions``).
    enum CodingKeys: Int, CodingKey, CaseIterable {
        case id, feedURL, title, author, summary, artworkURL, itunesID, podcastGUID, etag, lastModified
        case subscribed, updated, updateCount, lastError, lastFailure, gone, autodownload, keep, speed
    }
}

extension StoredPodcast: PositionallyDecodedRecord {
    public init(row: Row) throws {
        try self.init(PositionedRow(row))
    }

    init(_ row: PositionedRow<CodingKeys>) throws {
        id = try row.optional(.id)
        feedURL = try row(.feedURL)
        title = try row(.title)
        author = try row.optional(.author)
        summary = try row.optional(.summary)
        artworkURL = try row.optional(.artworkURL)
        itunesID = try row.optional(.itunesID)
        podcastGUID = try row.optional(.podcastGUID)
        etag = try row.optional(.etag)
        lastModified = try row.optional(.lastModified)
        subscribed = try row.date(.subscribed)
        updated = try row.optionalDate(.updated)
        updateCount = try row(.updateCount)
        lastError = try row.optional(.lastError)
        lastFailure = try row.optionalJSON(.lastFailure, as: UpdateFailure.self, of: Self.self)
        gone = try row(.gone)
        autodownload = try row(.autodownload)
        keep = try row.optional(.keep)
        speed = try row.optional(.speed)
    }
}

/// An episode, as the library stores it.
public struct StoredEpisode: Codable, Sendable, Equatable, Identifiable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "episode"

    public var id: Int64?
    public var podcastID: Int64
    /// The feed's identity for it (``FeedKit/FeedItem/guid``).
    public var guid: String
    public var title: String
    public var summary: String?
    /// The show notes as allow-listed markup, when they hold more than text
    /// (``FeedKit/FeedItem/notes``): the web page shows their links.
    public var notes: String?
    public var published: Date?
    public var seconds: Double?
    public var audioURL: String
    public var audioType: String?
    public var audioLength: Int64?
    /// Apple's trackId, matched through `episodeGuid`: downloads then keep the
    /// `{collectionId}/{trackId}.ext` layout.
    public var trackID: Int64?
    public var season: Int?
    public var episodeNumber: Int?
    public var chaptersURL: String?
    /// JSON: `[{"url", "type"}]`.
    public var transcripts: String?
    /// JSON: `[{"url", "text"}]`.
    public var funding: String?
    public var isNew: Bool
    public var played: Bool
    /// Seconds into the episode where listening stopped.
    public var position: Double
    public var downloaded: Bool
    public var firstSeen: Date
    /// When `played` or `position` last changed, here or by a sync: a sync's older
    /// action does not move it back.
    public var stateChanged: Date?

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Its columns, one for each stored property; `Int` raw values in this order
    /// make their positions (``ColumnPositions``).
    enum CodingKeys: Int, CodingKey, CaseIterable {
        case id, podcastID, guid, title, summary, notes, published, seconds, audioURL, audioType, audioLength
        case trackID, season, episodeNumber, chaptersURL, transcripts, funding, isNew, played, position
        case downloaded, firstSeen, stateChanged
    }

    /// The stored form of a feed item of podcast `podcastID`.
    public init(_ item: FeedItem, podcastID: Int64, isNew: Bool, seen: Date = Date()) {
        self.podcastID = podcastID
        guid = item.guid
        title = item.title
        summary = item.description
        notes = item.notes
        published = item.published
        seconds = item.duration.map { Double($0.components.seconds) }
        audioURL = item.enclosure.url.absoluteString
        audioType = item.enclosure.type
        audioLength = item.enclosure.length
        season = item.season
        episodeNumber = item.episode
        chaptersURL = item.chaptersURL?.absoluteString
        transcripts = item.transcripts.isEmpty ? nil : Self.json(item.transcripts)
        funding = item.funding.isEmpty ? nil : Self.json(item.funding)
        self.isNew = isNew
        played = false
        position = 0
        downloaded = false
        firstSeen = seen
    }

    /// Takes what the feed says now, keeping what the listener did.
    mutating func refresh(from item: FeedItem) {
        let fresh = StoredEpisode(item, podcastID: podcastID, isNew: isNew, seen: firstSeen)
        title = fresh.title
        summary = fresh.summary
        notes = fresh.notes
        published = fresh.published
        seconds = fresh.seconds
        audioURL = fresh.audioURL
        audioType = fresh.audioType
        audioLength = fresh.audioLength
        season = fresh.season
        episodeNumber = fresh.episodeNumber
        chaptersURL = fresh.chaptersURL
        transcripts = fresh.transcripts
        funding = fresh.funding
    }

    public var transcriptList: [Transcript] { Self.transcripts(fromJSON: transcripts) }

    public var fundingList: [Funding] { Self.funding(fromJSON: funding) }

    /// The transcripts a `transcripts` column holds (none when it holds no valid JSON).
    public static func transcripts(fromJSON json: String?) -> [Transcript] {
        json.flatMap { try? JSONDecoder().decode([Transcript].self, from: Data($0.utf8)) } ?? []
    }

    /// The funding links a `funding` column holds.
    public static func funding(fromJSON json: String?) -> [Funding] {
        json.flatMap { try? JSONDecoder().decode([Funding].self, from: Data($0.utf8)) } ?? []
    }

    private static func json<T: Encodable>(_ value: T) -> String? {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension StoredEpisode: PositionallyDecodedRecord {
    public init(row: Row) throws {
        try self.init(PositionedRow(row))
    }

    init(_ row: PositionedRow<CodingKeys>) throws {
        id = try row.optional(.id)
        podcastID = try row(.podcastID)
        guid = try row(.guid)
        title = try row(.title)
        summary = try row.optional(.summary)
        notes = try row.optional(.notes)
        published = try row.optionalDate(.published)
        seconds = try row.optional(.seconds)
        audioURL = try row(.audioURL)
        audioType = try row.optional(.audioType)
        audioLength = try row.optional(.audioLength)
        trackID = try row.optional(.trackID)
        season = try row.optional(.season)
        episodeNumber = try row.optional(.episodeNumber)
        chaptersURL = try row.optional(.chaptersURL)
        transcripts = try row.optional(.transcripts)
        funding = try row.optional(.funding)
        isNew = try row(.isNew)
        played = try row(.played)
        position = try row(.position)
        downloaded = try row(.downloaded)
        firstSeen = try row.date(.firstSeen)
        stateChanged = try row.optionalDate(.stateChanged)
    }
}

/// A subscription with the counts `podcasts` shows.
public struct PodcastSummary: Sendable, Equatable {
    public var podcast: StoredPodcast
    public var episodeCount: Int
    public var newCount: Int
    public var downloadedCount: Int

    public init(podcast: StoredPodcast, episodeCount: Int, newCount: Int, downloadedCount: Int) {
        self.podcast = podcast
        self.episodeCount = episodeCount
        self.newCount = newCount
        self.downloadedCount = downloadedCount
    }
}

extension StoredPodcast {
    /// Its columns, named after its properties (GRDB's convention: a renamed
    /// property cannot leave a query behind).
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let feedURL = Column(CodingKeys.feedURL)
        public static let autodownload = Column(CodingKeys.autodownload)
        public static let keep = Column(CodingKeys.keep)
        public static let speed = Column(CodingKeys.speed)
    }
}

extension StoredEpisode {
    /// Its columns, named after its properties.
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let podcastID = Column(CodingKeys.podcastID)
        public static let guid = Column(CodingKeys.guid)
        public static let summary = Column(CodingKeys.summary)
        public static let published = Column(CodingKeys.published)
        public static let isNew = Column(CodingKeys.isNew)
        public static let played = Column(CodingKeys.played)
        public static let position = Column(CodingKeys.position)
        public static let downloaded = Column(CodingKeys.downloaded)
        public static let stateChanged = Column(CodingKeys.stateChanged)
    }

    /// Every column of the table but `summary`, which reads as NULL: a podcast of
    /// thousands of episodes carries megabytes of descriptions, and only `show`
    /// needs one. From the schema (GRDB caches it), so a column added by a later
    /// migration is read too.
    static func selectionWithoutSummary(_ db: Database) throws -> [any SQLSelectable] {
        try db.columns(in: databaseTableName).map { column -> any SQLSelectable in
            column.name == Columns.summary.name ? SQL("NULL AS summary") : Column(column.name)
        }
    }

    /// Newest first, as `episodes` numbers them.
    static var listedOrder: [any SQLOrderingTerm] { [Columns.published.desc, Columns.id.desc] }
}

/// A new episode as `new`'s table shows it (``Library/newEpisodeLines()``): its
/// podcast's title, its title, date and length, and nothing else.
public struct NewEpisodeLine: Sendable, Equatable {
    public var podcastTitle: String
    public var title: String
    public var published: Date?
    public var seconds: Double?

    public init(podcastTitle: String, title: String, published: Date?, seconds: Double?) {
        self.podcastTitle = podcastTitle
        self.title = title
        self.published = published
        self.seconds = seconds
    }

    /// The line of a whole episode and its podcast.
    public init(podcast: StoredPodcast, episode: StoredEpisode) {
        self.init(
            podcastTitle: podcast.title,
            title: episode.title,
            published: episode.published,
            seconds: episode.seconds
        )
    }

    /// Its columns, named as ``Library/newEpisodeLines()`` selects them.
    enum CodingKeys: Int, CodingKey, CaseIterable {
        case podcastTitle, title, published, seconds
    }
}

extension NewEpisodeLine: PositionallyDecodedRecord {
    public init(row: Row) throws {
        try self.init(PositionedRow(row))
    }

    init(_ row: PositionedRow<CodingKeys>) throws {
        podcastTitle = try row(.podcastTitle)
        title = try row(.title)
        published = try row.optionalDate(.published)
        seconds = try row.optional(.seconds)
    }
}
