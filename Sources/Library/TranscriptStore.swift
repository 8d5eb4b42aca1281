import FeedKit
import Foundation
import GRDB

/// A transcript the library keeps: which one was fetched, and its paragraphs.
public struct StoredTranscript: Sendable, Equatable {
    public var url: URL
    public var format: TranscriptFormat
    public var fetched: Date
    /// In spoken order, as ``TranscriptDocument/paragraphs(seconds:characters:)``
    /// made them.
    public var paragraphs: [TranscriptCue]
    /// For each paragraph (same index), where its cues start in its text and
    /// when each was said; empty for a paragraph of one cue or no times.
    public var cueStarts: [[TranscriptDocument.CueStart]]

    public init(
        url: URL,
        format: TranscriptFormat,
        fetched: Date,
        paragraphs: [TranscriptCue],
        cueStarts: [[TranscriptDocument.CueStart]] = []
    ) {
        self.url = url
        self.format = format
        self.fetched = fetched
        self.paragraphs = paragraphs
        self.cueStarts = cueStarts
    }

    /// A document's paragraphs as the library keeps them, with their cue
    /// starts (``TranscriptDocument/timedParagraphs(seconds:characters:)``).
    public init(
        url: URL,
        format: TranscriptFormat,
        fetched: Date,
        timed: [(paragraph: TranscriptCue, cueStarts: [TranscriptDocument.CueStart])]
    ) {
        self.init(
            url: url,
            format: format,
            fetched: fetched,
            paragraphs: timed.map(\.paragraph),
            cueStarts: timed.map(\.cueStarts)
        )
    }

    /// When the words at `offset` (UTF-8, in the text of paragraph `index`)
    /// were said: the start of the cue that holds them, else the paragraph's.
    public func time(ofParagraph index: Int, atOffset offset: Int) -> Double? {
        guard paragraphs.indices.contains(index) else { return nil }
        let starts = cueStarts.indices.contains(index) ? cueStarts[index] : []
        return starts.last { $0.offset <= offset }?.seconds ?? paragraphs[index].start
    }
}

extension Library {
    /// Keeps `document` (fetched from `url`) as the transcript of an episode,
    /// replacing the one it had, and indexes it for `find`, in one transaction.
    @discardableResult
    public func storeTranscript(
        _ document: TranscriptDocument,
        from url: URL,
        for episodeID: Int64,
        at now: Date = Date()
    ) async throws(LibraryError) -> StoredTranscript {
        let timed = document.timedParagraphs()
        try await write("write to") { db in
            // The old one's lines go by cascade, and the index with them by trigger.
            try db.execute(sql: "DELETE FROM transcript WHERE episodeID = ?", arguments: [episodeID])
            try db.execute(
                sql: "INSERT INTO transcript (episodeID, url, format, fetched) VALUES (?, ?, ?, ?)",
                arguments: [episodeID, url.absoluteString, document.format.rawValue, now]
            )
            let insert = try db.makeStatement(
                sql: "INSERT INTO transcriptLine (transcriptID, start, speaker, text, cues) VALUES (?, ?, ?, ?, ?)"
            )
            for (paragraph, cueStarts) in timed {
                try insert.execute(arguments: [
                    episodeID, paragraph.start, paragraph.speaker, paragraph.text, CueStarts.text(cueStarts),
                ])
            }
        }
        return StoredTranscript(url: url, format: document.format, fetched: now, timed: timed)
    }

    /// The transcript kept for an episode, or nil when none was fetched.
    public func transcript(of episodeID: Int64) async throws(LibraryError) -> StoredTranscript? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT url, format, fetched FROM transcript WHERE episodeID = ?",
                    arguments: [episodeID]
                ),
                let url = URL(string: row["url"]), let format = TranscriptFormat(rawValue: row["format"])
            else { return nil }
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT start, speaker, text, cues FROM transcriptLine WHERE transcriptID = ? ORDER BY id",
                arguments: [episodeID]
            )
            return StoredTranscript(
                url: url,
                format: format,
                fetched: row["fetched"],
                paragraphs: rows.map { TranscriptCue(start: $0["start"], speaker: $0["speaker"], text: $0["text"]) },
                cueStarts: rows.map { CueStarts.parse($0["cues"]) }
            )
        }
    }

    /// Of these episodes, those that offer a transcript feedsh reads and have none
    /// kept yet, with the one to fetch (for `set transcripts auto on`).
    public func transcriptsToFetch(among episodeIDs: [Int64]) async throws(LibraryError)
        -> [(episodeID: Int64, transcript: Transcript, format: TranscriptFormat)]
    {
        guard !episodeIDs.isEmpty else { return [] }
        return try await read { db in
            try StoredEpisode
                .filter(episodeIDs.contains(StoredEpisode.Columns.id))
                .filter(sql: "transcripts IS NOT NULL AND id NOT IN (SELECT episodeID FROM transcript)")
                .fetchAll(db)
                .compactMap { episode in
                    guard let id = episode.id,
                        let (transcript, format) = TranscriptFormat.richest(episode.transcriptList)
                    else { return nil }
                    return (id, transcript, format)
                }
        }
    }
}

/// A paragraph's cue starts as the library keeps them (`transcriptLine.cues`):
/// `offset:seconds` pairs, comma-separated; none for one cue (its start is the
/// paragraph's).
enum CueStarts {
    static func text(_ starts: [TranscriptDocument.CueStart]) -> String? {
        guard starts.count > 1 else { return nil }
        return starts.map { "\($0.offset):\($0.seconds)" }.joined(separator: ",")
    }

    static func parse(_ text: String?) -> [TranscriptDocument.CueStart] {
        guard let text else { return [] }
        return text.split(separator: ",").compactMap { pair in
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let offset = Int(parts[0]), let seconds = Double(parts[1]) else { return nil }
            return TranscriptDocument.CueStart(offset: offset, seconds: seconds)
        }
    }

    /// When the words marked in `marked` (the paragraph with FTS5's
    /// `highlight`, matches between ``SearchHit/markStart`` and
    /// ``SearchHit/markEnd``) were said: the start of the cue that holds the
    /// first of them; else `paragraphStart`.
    static func time(of marked: String?, cues: String?, paragraphStart: Double?) -> Double? {
        let starts = parse(cues)
        guard let marked, !starts.isEmpty,
            let mark = marked.utf8.firstIndex(of: UInt8(ascii: "\u{1}"))
        else { return paragraphStart }
        // No mark comes before the first: its offset is the text's.
        let offset = marked.utf8.distance(from: marked.utf8.startIndex, to: mark)
        return starts.last { $0.offset <= offset }?.seconds ?? paragraphStart
    }
}
