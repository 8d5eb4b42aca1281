import FeedKit
import Foundation
import GRDB
import Testing

@testable import Library

/// `find`'s index: what it finds, and that it follows every write of what it indexes.
@Suite("Search")
struct SearchTests {
    let library: Library
    let podcastID: Int64

    init() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-search-\(UUID().uuidString)/library.sqlite").path
        library = try Library(path: path)
        podcastID = try #require(
            try await library.subscribe(feedURL: URL(string: "https://feeds.example/a.xml")!, title: "A").podcast.id
        )
        try await store([
            Self.item("g1", "Gardening in winter", notes: "Frost, mulch and the café garden", day: 1),
            Self.item("g2", "Bees", notes: "Hives and honey", day: 2),
            Self.item("g3", "No date", notes: "Compost", day: nil),
        ])
    }

    static func item(_ guid: String, _ title: String, notes: String, day: Int?) -> FeedItem {
        FeedItem(
            guid: guid,
            title: title,
            description: notes,
            published: day.map { Date(timeIntervalSince1970: 1_790_000_000 + Double($0) * 86_400) },
            enclosure: Enclosure(url: URL(string: "https://media.example/\(guid).mp3")!, type: "audio/mpeg")
        )
    }

    func store(_ items: [FeedItem]) async throws {
        var feed = Feed()
        feed.title = "Garden Talk"
        feed.items = items
        _ = try await library.store(feed, for: podcastID, validators: (nil, nil))
    }

    func find(_ words: String...) async throws -> [SearchHit] {
        try await library.search(SearchQuery(words), limit: 20)
    }

    func id(_ guid: String) async throws -> Int64 {
        try #require(try await library.episodes(of: podcastID).first { $0.guid == guid }?.id)
    }

    @Test func titlesAndShowNotesAreFoundWithoutCaseOrAccents() async throws {
        let hits = try await find("CAFE")
        #expect(hits.count == 1)
        let hit = try #require(hits.first)
        #expect(hit.title == "Gardening in winter")
        #expect(hit.podcast == "Garden Talk")
        #expect(hit.at == nil)
        #expect(hit.snippet.contains("\u{1}café\u{2}"))
        // Numbered as `episodes` lists them: newest first, the undated last.
        #expect(hit.podcastNumber == podcastID)
        #expect(hit.episodeNumber == 2)
        #expect(try await find("compost").first?.episodeNumber == 3)
        #expect(try await find("hive*").first?.episodeNumber == 1)
        let ids = try await library.episodeIDs(of: podcastID)
        for (offset, episodeID) in ids.enumerated() {
            let number = try await library.read { db in try Library.listedNumber(of: episodeID, db) }
            #expect(number == offset + 1)
        }
    }

    @Test func theIndexFollowsUpdatesAndUnsubscribe() async throws {
        try await store([
            Self.item("g1", "Gardening in spring", notes: "Seeds", day: 1),
            Self.item("g2", "Bees", notes: "Hives and honey", day: 2),
        ])
        #expect(try await find("winter").isEmpty)
        #expect(try await find("spring").count == 1)
        #expect(try await find("frost").isEmpty)
        try await library.storeTranscript(
            TranscriptDocument(format: .srt, cues: [TranscriptCue(start: 61, text: "The queen bee lays eggs")]),
            from: URL(string: "https://media.example/g2.srt")!,
            for: try await id("g2")
        )
        #expect(try await find("queen").count == 1)
        try await library.unsubscribe(podcastID)
        #expect(try await find("bees").isEmpty)
        #expect(try await find("queen").isEmpty)
        let (lines, index) = try await library.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM transcriptLine") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM transcriptText WHERE transcriptText MATCH 'queen'")
                    ?? -1
            )
        }
        #expect(lines == 0 && index == 0)
        // The index agrees with its content tables.
        try await library.database.write { db in
            try db.execute(sql: "INSERT INTO episodeText(episodeText, rank) VALUES ('integrity-check', 1)")
            try db.execute(sql: "INSERT INTO transcriptText(transcriptText, rank) VALUES ('integrity-check', 1)")
        }
    }

    @Test func transcriptHitsSayWhenAndAStoredTranscriptReadsBack() async throws {
        let episode = try await id("g1")
        let document = TranscriptDocument(
            format: .webVTT,
            cues: [
                TranscriptCue(start: 0, end: 4, speaker: "Ann", text: "Welcome to the garden."),
                TranscriptCue(start: 5, end: 9, speaker: "Ann", text: "Today: leeks."),
                TranscriptCue(start: 754, end: 760, speaker: "Bo", text: "Leeks survive frost."),
            ]
        )
        let url = URL(string: "https://media.example/g1.vtt")!
        try await library.storeTranscript(document, from: url, for: episode)
        let hits = try await find("leeks", "survive")
        #expect(hits.map(\.at) == [754])
        // A word of a paragraph's second cue was said when that cue starts.
        #expect(try await find("today").map(\.at) == [5])
        #expect(try await find("welcome").map(\.at) == [0])
        let stored = try #require(try await library.transcript(of: episode))
        #expect(stored.url == url && stored.format == .webVTT)
        #expect(stored.paragraphs.map(\.text) == ["Welcome to the garden. Today: leeks.", "Leeks survive frost."])
        #expect(stored.paragraphs.map(\.speaker) == ["Ann", "Bo"])
        // Fetched again: replaced, not added to.
        try await library.storeTranscript(document, from: url, for: episode)
        #expect(try await find("welcome").count == 1)
        #expect(try await library.transcriptsToFetch(among: [episode]).isEmpty)
    }

    /// Cue starts are byte offsets in the paragraph: a mark after accented
    /// letters still finds its cue; without kept cue starts (a transcript stored
    /// before they were), the paragraph's start.
    @Test func aMatchIsTimedByItsCue() {
        let document = TranscriptDocument(
            format: .srt,
            cues: [
                TranscriptCue(start: 10, text: "Café crème."), TranscriptCue(start: 14, text: "Grüße aus Köln."),
                TranscriptCue(start: 19, text: "Tschüss."),
            ]
        )
        let timed = document.timedParagraphs()
        #expect(timed.count == 1)
        let text = CueStarts.text(timed[0].cueStarts)
        #expect(text == "0:10.0,14:14.0,33:19.0")
        #expect(
            CueStarts.time(of: "Café crème. \u{1}Grüße\u{2} aus Köln. Tschüss.", cues: text, paragraphStart: 10) == 14
        )
        #expect(
            CueStarts.time(of: "Café crème. Grüße aus Köln. \u{1}Tschüss\u{2}.", cues: text, paragraphStart: 10) == 19
        )
        #expect(CueStarts.time(of: "\u{1}Café\u{2} crème.", cues: text, paragraphStart: 10) == 10)
        #expect(CueStarts.time(of: "Grüße \u{1}aus\u{2}", cues: nil, paragraphStart: 10) == 10)
    }

    @Test(arguments: [
        ["c++"], ["title:", "("], ["\"quoted\""], ["NOT"], ["OR", "bees"], ["bees", "AND"], ["a", "OR", "OR", "b"],
        ["NEAR(a", "b)"], ["-bees"], ["^bees"], ["bees*"], ["open source*"], ["{title}"], ["'"],
    ])
    func noInputIsAnFTSSyntaxError(words: [String]) async throws {
        _ = try await find(words)
    }

    /// A query is bounded, and says which bound: a search of 200 prefixes took
    /// 50 s and 350 MB on a library of transcripts.
    @Test func aQueryIsBounded() throws {
        #expect(throws: SearchQueryError.tooManyWords(33, max: 32)) {
            try SearchQuery(Array(repeating: "bee", count: 33))
        }
        let prefixes = (0..<5).flatMap { ["be\($0)*", "OR"] }.dropLast()
        #expect(throws: SearchQueryError.tooManyPrefixes(max: 4)) { try SearchQuery(Array(prefixes)) }
        #expect(throws: SearchQueryError.prefixTooShort("w*", min: 2)) { try SearchQuery(["w*"]) }
        _ = try SearchQuery(Array(prefixes.prefix(7)))
        _ = try SearchQuery(Array(repeating: "bee", count: 32))
    }

    func find(_ words: [String]) async throws -> [SearchHit] {
        try await library.search(SearchQuery(words), limit: 20)
    }

    /// Of a word found everywhere, only the newest matches are ranked.
    @Test func aWordFoundEverywhereIsRankedAmongItsNewestMatches() async throws {
        try await store((1...10).map { Self.item("n\($0)", "Episode \($0)", notes: "everywhere", day: 10 + $0) })
        let hits = try await library.search(SearchQuery(["everywhere"]), limit: 20, candidates: 3)
        #expect(Set(hits.map(\.title)) == ["Episode 8", "Episode 9", "Episode 10"])
        #expect(try await find("everywhere").count == 10)
    }

    @Test func phrasesPrefixesAndOperatorsFollowFTS5() async throws {
        #expect(try await find(["hives and"]).count == 1)
        #expect(try await find(["honey hives"]).isEmpty)
        #expect(try await find(["gard*"]).count == 1)
        #expect(try await find(["bees", "OR", "compost"]).count == 2)
        #expect(try await find(["bees", "NOT", "honey"]).isEmpty)
        #expect(throws: SearchQueryError.prefixWithoutLetters("*")) { try SearchQuery(["*"]) }
        #expect(throws: SearchQueryError.starInside("a*b")) { try SearchQuery(["a*b"]) }
        #expect(throws: SearchQueryError.emptyWord) { try SearchQuery(["  "]) }
        #expect(throws: SearchQueryError.noWords) { try SearchQuery([]) }
        #expect(try SearchQuery(["say \"hi\"", "pod*"]).expression == #""say ""hi""" "pod"*"#)
    }
}
