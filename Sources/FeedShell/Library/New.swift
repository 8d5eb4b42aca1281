import FeedServices
import Foundation
import Library
import PlainText
import ShellKit

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
        // Whole episodes for a program; for a person only the table's columns (on
        // 10,000 new episodes, reading them whole was most of the table's time).
        if context.json {
            return Listing(
                items: try await context.services.library.newEpisodes(),
                empty: .noNewEpisodes,
                table: { Render.newEpisodes($0.map(NewEpisodeLine.init)) },
                json: JSONRender.newEpisodes
            )
        }
        return Listing(
            items: try await context.services.library.newEpisodeLines(),
            empty: .noNewEpisodes,
            table: Render.newEpisodes
        )
    }
}

extension LibraryService {
    /// The new episodes across the library, newest first.
    func newEpisodes() async throws(ShellError) -> [(podcast: StoredPodcast, episode: StoredEpisode)] {
        let library = try make()
        return try await libraryCall { () async throws(LibraryError) in try await library.newEpisodes() }
    }

    /// What `new`'s table shows of the new episodes, in the same order.
    func newEpisodeLines() async throws(ShellError) -> [NewEpisodeLine] {
        let library = try make()
        return try await libraryCall { () async throws(LibraryError) in try await library.newEpisodeLines() }
    }
}
