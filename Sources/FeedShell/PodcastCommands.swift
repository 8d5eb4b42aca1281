import FeedKit

extension Command {
    static let defaultPodcastID: Int64 = 1_386_867_488
    static let defaultLookupLimit = 5

    static let lookup = Command(
        name: "lookup",
        synopsis: "lookup [ID|APPLE-PODCASTS-URL] [--limit N]",
        summary: "load a podcast and its latest episodes",
        details: """
            Loads a podcast from the iTunes lookup API by its numeric ID or its Apple
            Podcasts URL (https://podcasts.apple.com/us/podcast/name/id1386867488).
            Without an argument it loads \(defaultPodcastID). --limit sets how many of
            the latest episodes to load (1-200, default \(defaultLookupLimit)).
            """,
        flags: ["--limit"]
    ) { arguments, context throws(ShellError) in
        let limit = try arguments.intOption("limit", in: 1...200) ?? defaultLookupLimit
        var id = defaultPodcastID
        if let reference = try arguments.positional() {
            guard let parsed = PodcastReference.id(from: reference) else {
                throw .usage(
                    "'\(TerminalText.line(reference))' is not a podcast ID or URL",
                    synopsis: arguments.synopsis
                )
            }
            id = parsed
        }
        try arguments.finish()
        let podcast: Podcast = try await feed { () async throws(FeedError) in
            try await context.session.lookup(id: id, limit: limit)
        }
        if !context.console.json {
            for warning in podcast.warnings {
                context.console.printError("warning: \(TerminalText.line(warning.description))")
            }
        }
        let statuses = context.console.json ? await context.session.statuses() : [:]
        context.output(
            Render.podcastHeader(podcast, width: context.console.width),
            json: JSONRender.podcast(podcast, statuses: statuses)
        )
        return .proceed
    }

    static let episodes = Command(
        name: "episodes",
        synopsis: "episodes",
        summary: "list the loaded podcast's episodes",
        details: "A numbered table: number, release date, length, download status and title."
    ) { arguments, context throws(ShellError) in
        try arguments.finish()
        let podcast = try await context.session.requirePodcast()
        let statuses = await context.session.statuses()
        context.output(
            Render.episodes(podcast, statuses: statuses, width: context.console.width, color: context.console.color),
            json: JSONRender.episodes(podcast, statuses: statuses)
        )
        return .proceed
    }

    static let show = Command(
        name: "show",
        synopsis: "show N",
        summary: "show one episode in full",
        details: "N is the episode's number in the 'episodes' table."
    ) { arguments, context throws(ShellError) in
        let podcast = try await context.session.requirePodcast()
        arguments.synopsis = "show N (1-\(podcast.episodes.count))"
        guard let text = try arguments.positional() else { throw .usage(synopsis: arguments.synopsis) }
        try arguments.finish()
        guard let number = Int(text), podcast.episodes.indices.contains(number - 1) else {
            throw .usage("no episode '\(TerminalText.line(text))'", synopsis: arguments.synopsis)
        }
        let episode = podcast.episodes[number - 1]
        let status = await context.session.statuses()[episode.id]
        context.output(
            Render.episode(episode, number: number, podcast: podcast, status: status),
            json: JSONRender.episode(episode, number: number, status: status, full: true)
        )
        return .proceed
    }
}
