import FeedKit
import Library
import Processes
import ShellKit

extension Command {
    static let about = Command(
        CommandSpec(
            "about",
            summary: "say which feedsh this is and where it keeps things",
            details: """
                The version and what every request says it is (User-Agent); the library
                file and how many subscriptions it holds; the download folder, the
                engine, how many downloads run at once and the rate cap in effect; and
                the player 'play' would run, with where it was found in PATH. Paste it
                into a bug report.
                """
        )
    ) { _, context throws(ShellError) in
        try await About.gather(context.session)
    }
}

/// What `about` reports, gathered from the session without touching the network
/// or making a library (a library that cannot be read fails the command, naming
/// why, as any other command would).
struct About: CommandResult {
    let library: String
    /// Nil while no library has been made.
    let subscriptions: Int?
    let downloads: String
    let engine: String
    let maxConcurrent: Int
    let rateLimit: Int64?
    let player: String
    /// Where the player's program is in PATH; nil when it is not there.
    let playerPath: String?

    static func gather(_ session: Session) async throws(ShellError) -> About {
        var subscriptions: Int?
        if let library = try session.libraryIfMade() {
            subscriptions = try await libraryCall { () async throws(LibraryError) in
                try await library.podcastTitles().count
            }
        }
        await session.services.downloads.applySettings()
        let configuration = session.configuration
        let player = await session.services.listening.player()
        return About(
            library: configuration.libraryFile.path,
            subscriptions: subscriptions,
            downloads: configuration.downloadDirectory.path,
            engine: configuration.engine.rawValue,
            maxConcurrent: await session.services.downloads.maxConcurrent,
            rateLimit: session.services.downloads.rateLimit,
            player: player.template,
            playerPath: ForegroundProcess.find(player.program)
        )
    }
}
