import FeedKit
import ShellKit

extension Command {
    static let tracks = Command(
        CommandSpec(
            "tracks",
            summary: "find songs; 'preview N' downloads one's preview",
            details: """
                Searches the iTunes music catalogue for songs. --limit sets how many results
                (1-200, default 10). Songs are numbered for 'preview N'; their downloads are
                named tN in 'downloads', 'pause', 'resume', 'cancel' and 'wait'.
                """,
            arguments: [songTerm.spec],
            flags: [songLimit.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let limit = arguments[songLimit] ?? 10
        let term = try arguments.required(songTerm)
        let tracks: [Track] = try await feed { () async throws(FeedError) in
            try await context.session.searchTracks(term: term, limit: limit)
        }
        return Listing(items: tracks, empty: .noSongs(matching: term), table: Render.songs, json: JSONRender.songs)
    }

    static let preview = Command(
        CommandSpec(
            "preview",
            summary: "download song N's preview in the background",
            details: """
                Saves the preview of song N of the last 'tracks' list as
                {download-dir}/previews/{trackId}.{ext}, through the same engine as episodes:
                'pause tN', 'resume tN', 'cancel tN' and 'wait tN' act on it.
                """,
            arguments: [previewed.spec]
        )
    ) { arguments, context throws(ShellError) in
        // Song N or tN: the songs' own selector either way.
        let text = try arguments.required(previewed)
        let selector: Selector
        switch Selector.parse(text.hasPrefix("t") ? text : "t" + text, forms: .songs, noun: "song") {
        case .success(let parsed): selector = parsed
        case .failure(let problem):
            throw .usage(.selector(problem, noun: "song", count: nil), synopsis: arguments.synopsis)
        }
        let targets = try await context.session.targets(selector, verb: "preview")
        return await report(targets, await startDownloads(targets, context), summarise: false, context)
    }
}

extension Command {
    private static let songTerm = CommandArgument<String>("TERM", rest: true)
    private static let songLimit = CommandOption<Int>("limit", range: 1...200)
    private static let previewed = CommandArgument<String>("N", completion: .items(CompletionDomain.songs))
}
