import FeedKit
import Foundation
import GRDB
import Testing

@testable import Library

/// The records of long lists read by position (``PositionallyDecodedRecord``) read
/// what GRDB's `Codable` decoding read, column for column.
@Suite("Positional decoding")
struct PositionalDecodingTests {
    private static func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try Library.migrator.migrate(queue)
        return queue
    }

    /// A podcast with every property set, none to its default.
    private static let podcast: StoredPodcast = {
        var podcast = StoredPodcast(
            feedURL: "https://example.com/feed.xml",
            title: "Harbour Talk",
            itunesID: 42,
            subscribed: Date(timeIntervalSince1970: 1_700_000_000.125)
        )
        podcast.author = "Ana"
        podcast.summary = "About harbours."
        podcast.artworkURL = "https://example.com/a.jpg"
        podcast.podcastGUID = "917393e3-1b1e-5cef-ace4-edaa54e1f810"
        podcast.etag = "\"v1\""
        podcast.lastModified = "Tue, 14 Nov 2023 22:13:20 GMT"
        podcast.updated = Date(timeIntervalSince1970: 1_700_000_100.5)
        podcast.updateCount = 3
        podcast.lastError = "HTTP 500"
        podcast.lastFailure = .notAURL("harbour talk")
        podcast.gone = true
        podcast.autodownload = true
        podcast.keep = 5
        podcast.speed = 1.5
        return podcast
    }()

    /// An episode with every property set, none to its default.
    private static func episode(podcastID: Int64) -> StoredEpisode {
        var episode = StoredEpisode(
            FeedItem(
                guid: "g1",
                title: "The Lighthouse",
                published: Date(timeIntervalSince1970: 1_700_000_000),
                enclosure: Enclosure(url: URL(string: "https://example.com/1.mp3")!, type: "audio/mpeg", length: 1_000)
            ),
            podcastID: podcastID,
            isNew: true,
            seen: Date(timeIntervalSince1970: 1_700_000_200.25)
        )
        episode.summary = "Notes."
        episode.notes = "<p>Notes.</p>"
        episode.seconds = 600
        episode.trackID = 7
        episode.season = 2
        episode.episodeNumber = 9
        episode.chaptersURL = "https://example.com/1.json"
        episode.transcripts = #"[{"url":"https://example.com/1.vtt","type":"text/vtt"}]"#
        episode.funding = #"[{"url":"https://example.com/give","text":"Give"}]"#
        episode.played = true
        episode.position = 12.5
        episode.downloaded = true
        episode.stateChanged = Date(timeIntervalSince1970: 1_700_000_300.75)
        return episode
    }

    /// The fixtures leave nothing nil: a property added to a record and not to its
    /// positional reading fails here, not in a listing.
    @Test func theFixturesSetEveryProperty() {
        for value in [Self.podcast as Any, Self.episode(podcastID: 1)] {
            for child in Mirror(reflecting: value).children where child.label != "id" {
                let mirror = Mirror(reflecting: child.value)
                #expect(mirror.displayStyle != .optional || !mirror.children.isEmpty, "\(child.label ?? "?") is nil")
            }
        }
    }

    /// A key's raw value is its place among the keys (``ColumnPositions`` indexes by it).
    @Test func columnKeysAreNumberedInOrder() {
        #expect(StoredPodcast.CodingKeys.allCases.map(\.rawValue) == Array(StoredPodcast.CodingKeys.allCases.indices))
        #expect(StoredEpisode.CodingKeys.allCases.map(\.rawValue) == Array(StoredEpisode.CodingKeys.allCases.indices))
    }

    @Test func recordsReadBackAsTheyWereWrittenEveryWayTheyAreFetched() throws {
        let queue = try Self.database()
        let (podcast, episode) = try queue.write { db in
            var podcast = Self.podcast
            try podcast.insert(db)
            var episode = Self.episode(podcastID: podcast.id!)
            try episode.insert(db)
            return (podcast, episode)
        }
        try queue.read { db in
            #expect(try StoredPodcast.fetchOne(db, key: podcast.id) == podcast)
            #expect(try StoredPodcast.fetchAllByPosition(db, StoredPodcast.all()) == [podcast])
            #expect(try StoredEpisode.fetchOne(db, key: episode.id) == episode)
            #expect(try StoredEpisode.fetchAllByPosition(db, StoredEpisode.all()) == [episode])
            // As GRDB's Codable decoding reads them.
            let row = try Row.fetchOne(db, sql: "SELECT * FROM episode")!
            #expect(try FetchableRecordDecoder().decode(StoredEpisode.self, from: row) == episode)
            let podcastRow = try Row.fetchOne(db, sql: "SELECT * FROM podcast")!
            #expect(try FetchableRecordDecoder().decode(StoredPodcast.self, from: podcastRow) == podcast)
        }
    }

    /// A column a query leaves out reads as nil when the property may be nil, and
    /// fails, naming the column, when it may not; a NULL where a value must be
    /// fails too.
    @Test func missingColumnsAndNullsFailAsCodableDid() throws {
        let queue = try Self.database()
        try queue.write { db in
            var podcast = Self.podcast
            try podcast.insert(db)
            var episode = Self.episode(podcastID: podcast.id!)
            try episode.insert(db)
        }
        try queue.read { db in
            let partial = try StoredEpisode.fetchAllByPosition(
                db,
                SQLRequest<StoredEpisode>(
                    sql: """
                        SELECT id, podcastID, guid, title, audioURL, isNew, played, position, downloaded, firstSeen
                        FROM episode
                        """
                )
            )
            #expect(partial.count == 1)
            #expect(partial.first?.summary == nil && partial.first?.published == nil)
            #expect(partial.first?.title == "The Lighthouse")
            #expect(throws: RowDecodingError.self) {
                try StoredEpisode.fetchAllByPosition(db, SQLRequest<StoredEpisode>(sql: "SELECT id, guid FROM episode"))
            }
            #expect(throws: RowDecodingError.self) {
                try StoredEpisode.fetchAllByPosition(
                    db,
                    SQLRequest<StoredEpisode>(
                        sql: """
                            SELECT id, podcastID, guid, NULL AS title, audioURL, isNew, played, position, downloaded,
                                firstSeen
                            FROM episode
                            """
                    )
                )
            }
        }
    }

    /// Dates a list reads in place from its statement (the text GRDB writes), and
    /// every other form a hand or another program may have left (a number, other
    /// text SQLite's date functions allow), read as GRDB's `Codable` decoding reads
    /// them; and a number read so is still read as a number by the next column.
    @Test func datesInPlaceAndInOtherFormsReadAsCodableDid() throws {
        let queue = try Self.database()
        let forms: [DatabaseValue] = [
            Date(timeIntervalSince1970: 1_700_000_000.25).databaseValue, 1_700_000_000.databaseValue,
            1_700_000_000.5.databaseValue, "2023-11-14".databaseValue, "2023-11-14 22:13".databaseValue,
            "2023-11-14T22:13:20.000".databaseValue,
        ]
        try queue.write { db in
            var podcast = Self.podcast
            try podcast.insert(db)
            for (index, form) in forms.enumerated() {
                var episode = Self.episode(podcastID: podcast.id!)
                episode.guid = "g\(index)"
                try episode.insert(db)
                try db.execute(
                    sql: "UPDATE episode SET published = ?, firstSeen = ? WHERE id = ?",
                    arguments: [form, form, episode.id]
                )
            }
        }
        try queue.read { db in
            let listed = try StoredEpisode.fetchAllByPosition(db, StoredEpisode.order(StoredEpisode.Columns.id))
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM episode ORDER BY id")
            let codable = try rows.map { try FetchableRecordDecoder().decode(StoredEpisode.self, from: $0) }
            #expect(listed.count == forms.count)
            #expect(listed == codable)
            #expect(listed.allSatisfy { $0.published != nil && $0.published == $0.firstSeen })
        }
    }

    /// Stored dates read as GRDB reads them, to the last bit: the ones GRDB writes
    /// (milliseconds, UTC) from 1600 to 2400, and every other form left to it.
    /// Near 2001, Calendar's reference date, the order of the sum shows in the
    /// last bit: three dates that once read differently, and a band around it.
    @Test func storedDatesReadAsGRDBReadsThem() {
        var generator = SystemRandomNumberGenerator()
        var dates = [-11_644_473_600.0, 0, 951_782_400, 1_700_000_000.999, 4_102_444_799.5, 13_569_465_600]
        dates += [978_154_972.333, 974_320_362.544, 979_946_662.093]
        for _ in 0..<5_000 {
            dates.append(Double(Int64.random(in: -11_000_000_000_000...13_000_000_000_000, using: &generator)) / 1_000)
            dates.append(
                978_307_200 + Double(Int64.random(in: -8_000_000_000...8_000_000_000, using: &generator)) / 1_000
            )
        }
        for seconds in dates {
            let stored = Date(timeIntervalSince1970: seconds).databaseValue
            let ours = StoredDate.date(stored)
            #expect(ours != nil, "\(stored)")
            #expect(ours == Date.fromDatabaseValue(stored), "\(stored)")
        }
        // Other forms SQLite's date functions allow, numbers, and text out of range
        // are GRDB's to read.
        let texts = [
            "2023-11-14", "2023-11-14 22:13", "2023-11-14T22:13:20.000", "2023-11-14 22:13:20",
            "2023-13-14 22:13:20.000",
            "2023-11-14 24:13:20.000", "2023-11-14 22:13:20.00Z", "abcd-11-14 22:13:20.000",
        ]
        for other in texts.map(\.databaseValue) + [1_700_000_000.databaseValue, .null] {
            #expect(StoredDate.date(other) == nil, "\(other)")
        }
    }
}
