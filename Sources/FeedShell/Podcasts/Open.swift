import FeedKit
import PlainText
import ShellKit

extension Command {
    static let open = Command(
        CommandSpec(
            "open",
            summary: "load search result N, as 'lookup' does",
            details: """
                An Apple result is looked up in Apple's directory; a Podcast Index result
                (search --index) is read from its feed. --limit sets how many of the
                latest episodes to load (1-200, default \(defaultLookupLimit)).
                """,
            arguments: [opened.spec],
            flags: [episodeLimit.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let results = await context.session.searchResults
        guard !results.isEmpty else { throw .noSearchResults }
        let text = try arguments.required(opened)
        guard let number = Int(text), results.indices.contains(number - 1) else {
            throw .usage(.noSearchResult(text, count: results.count), synopsis: arguments.synopsis)
        }
        let result = results[number - 1]
        let limit = arguments[episodeLimit] ?? defaultLookupLimit
        return try await showLoaded(context) { () async throws(ShellError) in
            switch (result.directory, result.feedURL) {
            case (.podcastIndex, let url?):
                try await context.session.loadFeed(url, limit: limit)
            default:
                try await feed { () async throws(FeedError) in
                    try await context.session.lookup(id: result.id, limit: limit)
                }
            }
        }
    }
}

extension Command {
    private static let opened = CommandArgument<String>("N", completion: .items(CompletionDomain.searchResults))
}
