import FeedKit

extension Command {
    static let tracks = Command(
        name: "tracks",
        synopsis: "tracks TERM [--limit N]",
        summary: "find songs; 'preview N' downloads one's preview",
        details: """
            Searches the iTunes music catalogue for songs. --limit sets how many results
            (1-200, default 10). Songs are numbered for 'preview N'; their downloads are
            named tN in 'downloads', 'pause', 'resume', 'cancel' and 'wait'.
            """,
        flags: ["--limit"]
    ) { arguments, context throws(ShellError) in
        let limit = try arguments.intOption("limit", in: 1...200) ?? 10
        let term = try arguments.text()
        let tracks: [Track] = try await feed { () async throws(FeedError) in
            try await context.session.searchTracks(term: term, limit: limit)
        }
        guard !tracks.isEmpty else {
            context.output("no songs match '\(TerminalText.line(term))'", json: .array([]))
            return .proceed
        }
        let rows = tracks.enumerated().map { index, track in
            [
                String(index + 1), track.duration.map(Formatting.duration) ?? "-",
                track.previewURL == nil ? "no" : "yes",
                [track.title, track.artist, track.album ?? ""].filter { !$0.isEmpty }.map(TerminalText.line)
                    .joined(separator: " · "),
            ]
        }
        context.outputTable(
            header: ["#", "Length", "Preview", "Song"],
            rows: rows,
            rightAligned: [0, 1],
            json: .array(
                tracks.enumerated().map { index, track in
                    .object([
                        "number": .int(index + 1), "id": .int(track.id), "title": .string(track.title),
                        "artist": .string(track.artist), "album": .string(track.album),
                        "seconds": track.duration.map { .int($0.components.seconds) } ?? .null,
                        "previewURL": .string(track.previewURL?.absoluteString),
                    ])
                }
            )
        )
        return .proceed
    }

    static let preview = Command(
        name: "preview",
        synopsis: "preview N",
        summary: "download song N's preview in the background",
        details: """
            Saves the preview of song N of the last 'tracks' list as
            {download-dir}/previews/{trackId}.{ext}, through the same engine as episodes:
            'pause tN', 'resume tN', 'cancel tN' and 'wait tN' act on it.
            """
    ) { arguments, context throws(ShellError) in
        guard let text = try arguments.positional() else { throw .usage(synopsis: arguments.synopsis) }
        try arguments.finish()
        let selector = text.hasPrefix("t") ? text : "t" + text
        var get = Arguments([selector], synopsis: Command.get.synopsis)
        return try await Command.get.action(&get, context)
    }
}
