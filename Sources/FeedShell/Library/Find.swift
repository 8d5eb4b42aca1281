import Foundation
import Library
import PlainText
import ShellKit

extension Command {
    static let find = Command(
        CommandSpec(
            "find",
            summary: "search titles, show notes and transcripts of every subscription",
            details: """
                Searches the whole library (SQLite FTS5): episodes' titles and show
                notes, and every transcript fetched so far ('transcript N', or 'set
                transcripts on' for new episodes). Case and accents do not matter. Each
                word must occur; a quoted "two words" is a phrase, pod* a prefix, and
                OR, AND and NOT between words are operators. Hits are listed best
                first, numbered f1, f2..., with their P:E and, for a transcript, the time
                it was said: 'play f2' plays hit 2 from there (as 'play P:E --at TIME'
                would).
                """,
            arguments: [findWords.spec],
            flags: [findLimit.spec]
        )
    ) { arguments, context throws(ShellError) in
        let query: SearchQuery
        do throws(SearchQueryError) {
            query = try SearchQuery(arguments[findWords] ?? [])
        } catch {
            throw .usage(.search(error), synopsis: arguments.synopsis)
        }
        // No library yet: nothing to find, and none is made for asking.
        var hits: [SearchHit] = []
        if let library = try context.session.libraryIfMade() {
            let limit = arguments[findLimit] ?? 20
            hits = try await libraryCall { () async throws(LibraryError) in
                try await library.search(query, limit: limit)
            }
        }
        await context.session.remember(hits)
        return FoundHits(hits: hits)
    }
}

/// What `find` found, best first (numbered f1, f2...).
struct FoundHits: CommandResult {
    let hits: [SearchHit]
}

extension Command {
    private static let findWords = CommandArgument<[String]>.words("WORDS")
    private static let findLimit = CommandOption<Int>("limit", range: 1...1000)
}
