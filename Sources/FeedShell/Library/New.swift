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
        let fresh = try await context.services.library.newEpisodes()
        return Listing(items: fresh, empty: .noNewEpisodes, table: Render.newEpisodes, json: JSONRender.newEpisodes)
    }
}

extension LibraryService {
    /// The new episodes across the library, newest first.
    func newEpisodes() async throws(ShellError) -> [(podcast: StoredPodcast, episode: StoredEpisode)] {
        let library = try make()
        return try await libraryCall { () async throws(LibraryError) in try await library.newEpisodes() }
    }
}
