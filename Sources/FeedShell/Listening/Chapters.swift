import FeedKit
import Foundation
import PlainText
import ShellKit

extension Command {
    static let chapters = Command(
        CommandSpec(
            "chapters",
            summary: "list an episode's chapters",
            details: """
                Reads the episode's podcast:chapters JSON (the Podcast Index chapters
                format), or for an episode whose feed names none, the chapters mpv finds
                inside its downloaded file, and lists each chapter's number, start and
                title, and its web page when it has one. Markers the format keeps out of a table of
                contents ("toc": false) are left out. N is the episode's number in the
                'episodes' table; P:E is episode E of subscription P, from anywhere.
                """,
            arguments: [oneEpisodeArgument.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let (episode, _, selection) = try await oneEpisode(arguments, context)
        let marks = selection.subscription?.marks[episode.id]
        let chapters: [Chapter]
        if let address = marks?.chaptersURL, let url = URL(string: address) {
            let cache = context.session.sources.chapters
            let authorization = selection.subscription?.authorization(for: url)
            chapters = try await feed { () async throws(FeedError) in
                try await cache.chapters(at: url, authorization: authorization)
            }
        } else {
            let file = context.services.downloads.file(of: episode, in: selection.podcast).final.path
            guard FileManager.default.fileExists(atPath: file) else {
                throw .failure(ChaptersFailure.missing(episode: episode.title))
            }
            chapters = try await context.services.listening.chapters(inFile: file)
        }
        return Listing(
            items: chapters,
            empty: .noChapters(episode: episode.title),
            table: Render.chapters,
            json: JSONRender.chapters
        )
    }
}

/// Why `chapters` has nothing to list.
enum ChaptersFailure: CommandFailure {
    /// The episode's feed names no chapters (or it is no library episode).
    case missing(episode: String)

    var failureCode: String { "no-chapters" }
}
