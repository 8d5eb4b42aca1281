import FeedKit
import PlainText
import ShellKit

extension Command {
    static let search = Command(
        CommandSpec(
            "search",
            summary: "find podcasts by name; 'open N' loads one",
            details: """
                Searches Apple's podcast directory, or with --index the Podcast Index (its
                key and secret from FEEDSH_PODCASTINDEX_KEY and FEEDSH_PODCASTINDEX_SECRET,
                or 'set podcastindex-key' and 'set podcastindex-secret'). --limit sets how
                many results (1-200, default 10).
                """,
            arguments: [searchTerm.spec],
            flags: [resultLimit.spec, inIndex.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let term = try arguments.required(searchTerm)
        let results = try await context.session.searchPodcasts(
            term: term,
            limit: arguments[resultLimit] ?? 10,
            in: arguments[inIndex] ? .podcastIndex : .apple
        )
        return Listing(
            items: results,
            empty: .noPodcasts(matching: term),
            table: Render.searchResults,
            json: JSONRender.searchResults
        )
    }
}

extension Command {
    private static let searchTerm = CommandArgument<String>("TERM", rest: true)
    private static let resultLimit = CommandOption<Int>("limit", range: 1...200)
    private static let inIndex = CommandFlag("index")
}
