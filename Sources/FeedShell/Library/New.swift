import Foundation
import Library
import PlainText
import ShellKit
import TerminalKit

extension Command {
    static let new = Command(
        CommandSpec(
            "new",
            summary: "list the new episodes of every subscription",
            details: """
                Episodes that arrived in an update after a podcast's first, newest first.
                'get new' downloads them all (a cron line: feedsh -c 'update; get new;
                wait'); 'mark old N' or 'mark played N' clears them.
                """
        )
    ) { _, context throws(ShellError) in
        let fresh = try await context.session.newEpisodes()
        guard !fresh.isEmpty else {
            context.output("no new episodes", json: .array([]))
            return .proceed
        }
        let rows = fresh.enumerated().map { index, pair in
            [
                "n\(index + 1)", pair.episode.published.map { Formatting.date($0) } ?? "-",
                pair.episode.seconds.map { Formatting.duration(.seconds($0)) } ?? "-",
                SafeText.line(pair.podcast.title), SafeText.line(pair.episode.title),
            ]
        }
        context.output(
            Table(
                columns: [
                    .init("#", rightAligned: true), .init("Date"), .init("Length", rightAligned: true),
                    .init("Podcast", maxWidth: 28), .init("Title"),
                ],
                rows: rows
            ),
            json: .array(
                fresh.enumerated().map { index, pair in
                    JSONRender.libraryEpisode(pair.episode, podcast: pair.podcast, number: "n\(index + 1)")
                }
            )
        )
        return .proceed
    }
}

extension Session {
    /// The new episodes across the library, newest first.
    func newEpisodes() async throws(ShellError) -> [(podcast: StoredPodcast, episode: StoredEpisode)] {
        let library = try library()
        return try await libraryCall { () async throws(LibraryError) in try await library.newEpisodes() }
    }
}
