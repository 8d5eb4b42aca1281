import FeedKit
import Foundation
import PlainText
import ShellKit

extension Command {
    static let defaultPodcastID: Int64 = 1_386_867_488
    static let defaultLookupLimit = 5
    /// How many of a podcast's latest episodes `lookup` and `open` load.
    static let episodeLimit = CommandOption<Int>("limit", range: 1...200)
    private static let looked = CommandArgument<String>("ID|APPLE-PODCASTS-URL", optional: true)

    static let lookup = Command(
        CommandSpec(
            "lookup",
            summary: "load a podcast and its latest episodes",
            details: """
                Loads a podcast from the iTunes lookup API by its numeric ID or its Apple
                Podcasts URL (https://podcasts.apple.com/us/podcast/name/id1386867488).
                Without an argument it loads \(defaultPodcastID). --limit sets how many of
                the latest episodes to load (1-200, default \(defaultLookupLimit)).
                """,
            arguments: [looked.spec],
            flags: [episodeLimit.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        var id = defaultPodcastID
        if let reference = arguments[looked] {
            guard let parsed = PodcastReference.id(from: reference) else {
                throw .usage(.notAPodcast(reference), synopsis: arguments.synopsis)
            }
            id = parsed
        }
        let limit = arguments[episodeLimit] ?? defaultLookupLimit
        return try await showLoaded(context) { () async throws(ShellError) in
            try await feed { () async throws(FeedError) in try await context.session.lookup(id: id, limit: limit) }
        }
    }

    /// Loads a podcast with `load` and shows its header: what `lookup` and `open` do.
    static func showLoaded(
        _ context: CommandContext,
        _ load: () async throws(ShellError) -> Podcast
    ) async throws(ShellError) -> LoadedPodcast {
        let podcast = try await load()
        context.report(.feedWarnings(podcast.warnings.map { "\($0)" }))
        let statuses = context.json ? await context.session.statuses() : [:]
        return LoadedPodcast(podcast: podcast, statuses: statuses)
    }
}
