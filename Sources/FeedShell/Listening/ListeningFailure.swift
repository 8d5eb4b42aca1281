import PlainText
import Playback
import TerminalKit

/// Why playing failed, beyond what ``Playback/PlaybackError`` says.
enum ListeningFailure: CommandFailure {
    /// The player ran but could not play the file or stream.
    case notPlayable(source: String, reason: String)
    /// `play queue` with nothing queued.
    case emptyQueue
    /// `sleep` with no `play` running in any feedsh.
    case nothingPlaying
    /// A start (`--at`, a bookmark, a `find` hit) at or past the episode's end.
    case pastTheEnd(ref: String, at: Double, length: Double)

    var failureCode: String {
        switch self {
        case .notPlayable: "not-playable"
        case .emptyQueue: "empty-queue"
        case .nothingPlaying: "nothing-playing"
        case .pastTheEnd: "past-the-end"
        }
    }

    var description: String {
        switch self {
        case .notPlayable(let source, let reason): "cannot play \(source): \(reason)"
        case .emptyQueue: "the queue is empty: 'queue add SELECTOR' adds episodes"
        case .nothingPlaying: "nothing is playing: 'sleep' reaches a 'play' running in another feedsh"
        case .pastTheEnd(let ref, let at, let length):
            "\(Formatting.duration(.seconds(at))) is past the end of \(SafeText.line(ref)), which is \(Formatting.duration(.seconds(length))) long"
        }
    }
}

extension PlaybackError: CommandFailure {
    var failureCode: String { code.description }
}

extension ShellError {
    static func playback(_ error: PlaybackError) -> ShellError { .failure(error) }
    static func notPlayable(_ source: String, reason: String) -> ShellError {
        .failure(ListeningFailure.notPlayable(source: SafeText.line(source), reason: SafeText.line(reason)))
    }
}
