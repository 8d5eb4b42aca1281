import FeedKit
import Foundation
import GRDB

/// What `find` was asked, as an FTS5 query that cannot be a syntax error.
///
/// Each word is a quoted phrase, so `c++`, `title:` or `(` are text, not syntax.
/// A word with spaces (the shell's `"open source"`) is a phrase; a trailing `*`
/// makes a prefix (`pod*`); `OR`, `AND` and `NOT` between words are operators, and
/// anywhere else words.
///
/// A query is bounded: at most ``maxWords`` words and ``maxPrefixes`` prefixes,
/// each of at least ``minPrefixLength`` letters. Each prefix merges the lists of
/// every word it starts (`w*` is thousands of words in a library of transcripts):
/// 200 of them took 50 s and 350 MB.
public struct SearchQuery: Sendable, Equatable, CustomStringConvertible {
    /// The FTS5 expression.
    public let expression: String

    public static let maxWords = 32
    public static let maxPrefixes = 4
    public static let minPrefixLength = 2

    public init(_ words: [String]) throws(SearchQueryError) {
        guard words.count <= Self.maxWords else { throw .tooManyWords(words.count, max: Self.maxWords) }
        var parts: [String] = []
        var prefixes = 0
        var lastWasTerm = false
        for (index, word) in words.enumerated() {
            let isLast = index == words.count - 1
            if ["OR", "AND", "NOT"].contains(word), lastWasTerm, !isLast,
                !["OR", "AND", "NOT"].contains(words[index + 1])
            {
                parts.append(word)
                lastWasTerm = false
                continue
            }
            var text = Substring(word)
            let prefix = text.hasSuffix("*")
            if prefix { text = text.dropLast() }
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw prefix ? .prefixWithoutLetters(word) : .emptyWord
            }
            guard !text.contains("*") else { throw .starInside(word) }
            if prefix {
                prefixes += 1
                guard prefixes <= Self.maxPrefixes else { throw .tooManyPrefixes(max: Self.maxPrefixes) }
                guard text.count >= Self.minPrefixLength else {
                    throw .prefixTooShort(word, min: Self.minPrefixLength)
                }
            }
            parts.append("\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (prefix ? "*" : ""))
            lastWasTerm = true
        }
        guard !parts.isEmpty else { throw .noWords }
        expression = parts.joined(separator: " ")
    }

    public var description: String { expression }
}

/// Why words cannot be searched for (the shell words it).
public enum SearchQueryError: Error, Sendable, Equatable {
    /// `*` alone: a prefix of nothing.
    case prefixWithoutLetters(String)
    /// `a*b`: `*` only ends a word.
    case starInside(String)
    /// A word of nothing but spaces.
    case emptyWord
    case noWords
    /// More words than a query may have.
    case tooManyWords(Int, max: Int)
    /// More prefixes (`word*`) than a query may have.
    case tooManyPrefixes(max: Int)
    /// A prefix too short to be worth its cost (`w*`).
    case prefixTooShort(String, min: Int)
}

/// One place where `find`'s words occur: an episode's title or show notes, or a
/// paragraph of its transcript.
public struct SearchHit: Sendable, Equatable {
    public var episodeID: Int64
    /// The subscription's number (P of `P:E`).
    public var podcastNumber: Int64
    public var podcast: String
    /// The episode's number in its subscription's `episodes` (E of `P:E`).
    public var episodeNumber: Int
    public var title: String
    /// The text around the match, the matched words between ``markStart`` and
    /// ``markEnd``; sanitized when stored.
    public var snippet: String
    /// For a transcript hit, when its words were said (seconds): the start of
    /// the cue that holds the first of them.
    public var at: Double?

    public init(
        episodeID: Int64,
        podcastNumber: Int64,
        podcast: String,
        episodeNumber: Int,
        title: String,
        snippet: String,
        at: Double?
    ) {
        self.episodeID = episodeID
        self.podcastNumber = podcastNumber
        self.podcast = podcast
        self.episodeNumber = episodeNumber
        self.title = title
        self.snippet = snippet
        self.at = at
    }

    public static let markStart: Character = "\u{1}"
    public static let markEnd: Character = "\u{2}"
}

extension Library {
    /// The best hits for `query` across the whole library, best first: episodes
    /// whose title or show notes match (a title counts four times as much), and
    /// transcript paragraphs.
    ///
    /// Ranking (FTS5's bm25) is the cost of a search, and it grows with the
    /// matches: a word in every episode took 130 ms to rank. So each table ranks
    /// at most its ``rankedCandidates`` newest matches (by row, which is the order
    /// they were stored), and snippets are made only for the hits returned. A word
    /// found in more places than that is one in nearly every episode, whose
    /// ranking says little.
    public func search(
        _ query: SearchQuery,
        limit: Int,
        candidates: Int = rankedCandidates
    ) async throws(LibraryError) -> [SearchHit] {
        try await read { db in
            let arguments: StatementArguments = ["query": query.expression, "limit": limit, "candidates": candidates]
            var best: [(key: SearchRow, score: Double)] = []
            for table in SearchTable.all {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, score FROM (
                            SELECT rowid AS id, \(table.score) AS score FROM \(table.name)
                            WHERE \(table.name) MATCH :query ORDER BY rowid DESC LIMIT :candidates)
                        ORDER BY score LIMIT :limit
                        """,
                    arguments: arguments
                )
                best += rows.map { (SearchRow(table: table.name, id: $0["id"]), $0["score"]) }
            }
            best = Array(best.sorted { $0.score < $1.score }.prefix(limit))
            var hits: [SearchRow: SearchHit] = [:]
            for table in SearchTable.all {
                let ids = best.map(\.key).filter { $0.table == table.name }.map(\.id)
                guard let low = ids.min(), let high = ids.max() else { continue }
                // Snippets in one pass over the rows between the hits. Asked row by
                // row (or by a plain IN, which SQLite hands FTS5 value by value), a
                // prefix query merges its terms' lists again for each row: 50 ms
                // for 20 hits, against 4 ms. The unary + keeps the IN a filter.
                let rows = try Row.fetchAll(
                    db,
                    sql: table.select + """
                         WHERE \(table.name) MATCH ? AND \(table.name).rowid BETWEEN ? AND ?
                            AND +\(table.name).rowid IN (\(ids.map { _ in "?" }.joined(separator: ",")))
                        """,
                    arguments: StatementArguments(
                        [query.expression, low, high] as [any DatabaseValueConvertible] + ids
                    )
                )
                for row in rows {
                    let episodeID: Int64 = row["episodeID"]
                    hits[SearchRow(table: table.name, id: row["hit"])] = SearchHit(
                        episodeID: episodeID,
                        podcastNumber: row["podcastID"],
                        podcast: row["podcast"],
                        episodeNumber: try Self.listedNumber(of: episodeID, db),
                        title: row["title"],
                        snippet: row["snippet"] ?? "",
                        at: CueStarts.time(of: row["marked"], cues: row["cues"], paragraphStart: row["at"])
                    )
                }
            }
            return best.compactMap { hits[$0.key] }
        }
    }

    /// How many of the newest matches of each table `search` ranks.
    public static let rankedCandidates = 5000

    /// The episode's number in its subscription's list (newest first, as
    /// ``StoredEpisode/listedOrder``): one more than the episodes listed before it.
    static func listedNumber(of episodeID: Int64, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                SELECT 1 + count(*) FROM episode e, episode x
                WHERE x.id = ? AND e.podcastID = x.podcastID AND (
                    e.published > x.published
                    OR (e.published IS x.published AND e.id > x.id)
                    OR (x.published IS NULL AND e.published IS NOT NULL))
                """,
            arguments: [episodeID]
        ) ?? 0
    }

    /// Bytes the search index takes in the file (its FTS5 shadow tables), and
    /// bytes of the text it indexes.
    public func searchIndexSize() async throws(LibraryError) -> (index: Int, text: Int) {
        try await read { db in
            let index =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT sum(pgsize) FROM dbstat
                        WHERE name LIKE 'episodeText_%' OR name LIKE 'transcriptText_%'
                        """
                ) ?? 0
            let text =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT (SELECT coalesce(sum(length(CAST(title AS BLOB))
                                    + coalesce(length(CAST(summary AS BLOB)), 0)), 0) FROM episode)
                             + (SELECT coalesce(sum(length(CAST(text AS BLOB))), 0) FROM transcriptLine)
                        """
                ) ?? 0
            return (index, text)
        }
    }
}

/// A row of one of the FTS tables (their rowids number apart).
private struct SearchRow: Hashable {
    let table: String
    let id: Int64
}

/// An FTS table `search` reads: how it ranks, and what a hit's row gives (its
/// snippet, and for a transcript the paragraph's start).
private struct SearchTable {
    let name: String
    let score: String
    let select: String

    static let all = [
        SearchTable(
            name: "episodeText",
            // A title counts four times as much as show notes.
            score: "bm25(episodeText, 4.0, 1.0)",
            select: """
                SELECT episodeText.rowid AS hit, e.id AS episodeID, e.podcastID, p.title AS podcast, e.title,
                    snippet(episodeText, -1, char(1), char(2), '…', 12) AS snippet, NULL AS at,
                    NULL AS marked, NULL AS cues
                FROM episodeText JOIN episode e ON e.id = episodeText.rowid
                JOIN podcast p ON p.id = e.podcastID
                """
        ),
        SearchTable(
            name: "transcriptText",
            score: "bm25(transcriptText)",
            select: """
                SELECT transcriptText.rowid AS hit, e.id AS episodeID, e.podcastID, p.title AS podcast, e.title,
                    snippet(transcriptText, 0, char(1), char(2), '…', 16) AS snippet, l.start AS at,
                    highlight(transcriptText, 0, char(1), char(2)) AS marked, l.cues AS cues
                FROM transcriptText JOIN transcriptLine l ON l.id = transcriptText.rowid
                JOIN episode e ON e.id = l.transcriptID JOIN podcast p ON p.id = e.podcastID
                """
        ),
    ]
}
