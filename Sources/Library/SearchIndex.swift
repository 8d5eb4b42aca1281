import GRDB

/// The full-text index of the library (SQLite FTS5): episodes' titles and show
/// notes, and the transcripts fetched so far.
///
/// Both FTS tables are external-content tables over the rows they index, so no
/// text is stored twice, and triggers keep them in step with every write of
/// those rows: `update` (an episode stored or changed), `unsubscribe` (its
/// episodes deleted, their transcripts with them by cascade) and the transcript
/// store. Nothing else writes to them.
enum SearchIndex {
    /// Words are split by Unicode rules and compared without case or accents
    /// (`cafe` finds `Café`).
    static let tokenizer = "unicode61 remove_diacritics 2"

    static func create(_ db: Database) throws {
        // One row for each transcript fetched (also when it had no text), so
        // that it is not fetched again.
        try db.create(table: "transcript") { t in
            t.primaryKey("episodeID", .integer).references("episode", onDelete: .cascade)
            t.column("url", .text).notNull()
            t.column("format", .text).notNull()
            t.column("fetched", .datetime).notNull()
        }
        // Its paragraphs, in spoken order: what `transcript` shows and `find` searches.
        try db.create(table: "transcriptLine") { t in
            t.autoIncrementedPrimaryKey("id")
            // The transcript's (that is, its episode's) id.
            t.column("transcriptID", .integer).notNull().indexed().references("transcript", onDelete: .cascade)
            t.column("start", .double)
            t.column("speaker", .text)
            t.column("text", .text).notNull()
        }
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE episodeText USING fts5(
                    title, summary, content='episode', content_rowid='id', tokenize='\(tokenizer)');
                CREATE TRIGGER episodeText_insert AFTER INSERT ON episode BEGIN
                    INSERT INTO episodeText(rowid, title, summary) VALUES (new.id, new.title, new.summary);
                END;
                CREATE TRIGGER episodeText_delete AFTER DELETE ON episode BEGIN
                    INSERT INTO episodeText(episodeText, rowid, title, summary)
                        VALUES ('delete', old.id, old.title, old.summary);
                END;
                CREATE TRIGGER episodeText_update AFTER UPDATE OF title, summary ON episode
                WHEN old.title IS NOT new.title OR old.summary IS NOT new.summary BEGIN
                    INSERT INTO episodeText(episodeText, rowid, title, summary)
                        VALUES ('delete', old.id, old.title, old.summary);
                    INSERT INTO episodeText(rowid, title, summary) VALUES (new.id, new.title, new.summary);
                END;
                INSERT INTO episodeText(episodeText) VALUES ('rebuild');

                CREATE VIRTUAL TABLE transcriptText USING fts5(
                    text, content='transcriptLine', content_rowid='id', tokenize='\(tokenizer)');
                CREATE TRIGGER transcriptText_insert AFTER INSERT ON transcriptLine BEGIN
                    INSERT INTO transcriptText(rowid, text) VALUES (new.id, new.text);
                END;
                CREATE TRIGGER transcriptText_delete AFTER DELETE ON transcriptLine BEGIN
                    INSERT INTO transcriptText(transcriptText, rowid, text) VALUES ('delete', old.id, old.text);
                END;
                CREATE TRIGGER transcriptText_update AFTER UPDATE OF text ON transcriptLine BEGIN
                    INSERT INTO transcriptText(transcriptText, rowid, text) VALUES ('delete', old.id, old.text);
                    INSERT INTO transcriptText(rowid, text) VALUES (new.id, new.text);
                END;
                """
        )
    }
}
