import FeedKit
import ShellKit
import TerminalKit

extension Command {
    static let search = Command(
        CommandSpec(
            "search",
            summary: "find podcasts by name; 'open N' loads one",
            details: "Searches the iTunes podcast directory. --limit sets how many results (1-200, default 10).",
            arguments: [ArgumentSpec("TERM", rest: true)],
            flags: [FlagSpec("limit", value: .integer(1...200))],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let term = arguments["TERM"] ?? ""
        let results: [PodcastSearchResult] = try await feed { () async throws(FeedError) in
            try await context.session.searchPodcasts(term: term, limit: arguments.integer("limit") ?? 10)
        }
        guard !results.isEmpty else {
            context.output("no podcasts match '\(TerminalText.line(term))'", json: .array([]))
            return .proceed
        }
        let rows = results.enumerated().map { index, result in
            [
                String(index + 1), result.episodeCount.map(String.init) ?? "-",
                TerminalText.line(result.title) + (result.artist.map { " · " + TerminalText.line($0) } ?? ""),
            ]
        }
        context.output(
            Table(
                columns: [.init("#", rightAligned: true), .init("Episodes", rightAligned: true), .init("Podcast")],
                rows: rows
            ),
            json: .array(
                results.enumerated().map { index, result in
                    .object([
                        "number": .int(index + 1), "id": .int(result.id), "title": .string(result.title),
                        "artist": .string(result.artist), "episodeCount": result.episodeCount.map { .int($0) },
                        "genre": .string(result.genre),
                    ])
                }
            )
        )
        return .proceed
    }
}
