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
        let paragraphs = document.paragraphs()
        try await write("write to") { db in
            // The old one's lines go by cascade, and the index with them by trigger.
            try db.execute(sql: "DELETE FROM transcript WHERE episodeID = ?", arguments: [episodeID])
            try db.execute(
                sql: "INSERT INTO transcript (episodeID, url, format, fetched) VALUES (?, ?, ?, ?)",
                arguments: [episodeID, url.absoluteString, document.format.rawValue, now]
            )
            let insert = try db.makeStatement(
                sql: "INSERT INTO transcriptLine (transcriptID, start, speaker, text) VALUES (?, ?, ?, ?)"
            )
            for paragraph in paragraphs {
                try insert.execute(arguments: [episodeID, paragraph.start, paragraph.speaker, paragraph.text])
            }
        }
        return StoredTranscript(url: url, format: document.format, fetched: now, paragraphs: paragraphs)
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
            let paragraphs = try Row.fetchAll(
                db,
                sql: "SELECT start, speaker, text FROM transcriptLine WHERE transcriptID = ? ORDER BY id",
                arguments: [episodeID]
            ).map { TranscriptCue(start: $0["start"], speaker: $0["speaker"], text: $0["text"]) }
            return StoredTranscript(url: url, format: format, fetched: row["fetched"], paragraphs: paragraphs)
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
