import Downloads
import FeedKit
import Library
import Playback
import Sync

/// What a person can do about a lower module's failure, in the shell's words.
/// Library, FeedKit, Downloads and Sync name no command or flag in their errors
/// (another front end has neither); the shell adds the advice by their codes.
enum Advice {
    /// The advice for `error`, with the punctuation that joins it to the error's
    /// description, or nil when there is none.
    static func text(for error: any Error) -> String? {
        switch error {
        case let error as FeedError where error.credentialsWanted: " (subscribe URL --user NAME)"
        case let error as FeedError where error.keyRefused:
            ": check FEEDSH_PODCASTINDEX_KEY and FEEDSH_PODCASTINDEX_SECRET"
        case let error as LibraryError where error.code == .notALibrary || error.code == .newer: " (--library)"
        case let error as PlaybackError where error.code == .playerNotFound:
            error.player.isMPV && error.player.program == "mpv"
                ? " with 'set player \"mpg123 {}\"' or FEEDSH_PLAYER"
                : " (change it with 'set player COMMAND' or FEEDSH_PLAYER)"
        case let error as UpdateFailure:
            if case .feed(let feed) = error { text(for: feed) } else { nil }
        case let error as DownloadError where error.code == .tooLarge:
            " (--max-filesize or 'set max-size' allows more)"
        case let error as SyncError where error.code == SyncError.notLoggedIn.code:
            ": 'sync login URL USER' sets one up"
        default: nil
        }
    }

    /// `error`'s description, followed by its advice when there is one.
    static func described(_ error: any Error & CustomStringConvertible) -> String {
        error.description + (text(for: error) ?? "")
    }
}
