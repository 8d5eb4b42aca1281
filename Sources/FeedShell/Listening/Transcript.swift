import FeedKit
import FeedServices
import Foundation
import Library
import PlainText
import ShellKit

extension Command {
    static let transcript = Command(
        CommandSpec(
            "transcript",
            summary: "show an episode's transcript, with times and speakers",
            details: """
                Shows the episode's podcast:transcript (SRT, WebVTT, the Podcast Index
                JSON, HTML or plain text; of several, the richest: timed over untimed),
                a paragraph at a time with its start ([12:34]) and speaker where the
                transcript gives them, through the pager when it is taller than the
                screen. A transcript is fetched once and kept in the library, where
                'find' searches it; --refresh fetches it again. N is the episode's
                number in the 'episodes' table; P:E is episode E of subscription P.
                """,
            arguments: [oneEpisodeArgument.spec],
            flags: [refresh.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let (episode, _, selection) = try await oneEpisode(arguments, context)
        guard let marks = selection.subscription?.marks[episode.id] else {
            throw .failure(TranscriptFailure.notInLibrary(episode: episode.title))
        }
        let transcript = try await context.services.listening.transcriptForShell(
            of: marks.libraryID,
            offered: marks.transcripts,
            title: episode.title,
            refresh: arguments[refresh]
        )
        return ShownTranscript(transcript: transcript, title: episode.title)
    }
}

/// The transcript `transcript` shows, of the episode titled `title`.
struct ShownTranscript: CommandResult {
    let transcript: StoredTranscript
    let title: String
}

/// Why `transcript` has nothing to show.
enum TranscriptFailure: CommandFailure {
    /// The episode's feed names no transcript.
    case missing(episode: String)
    /// It names some, in none of the formats feedsh reads.
    case unreadable(episode: String, types: [String])
    /// A directory episode (from `lookup`), whose feed is not in the library.
    case notInLibrary(episode: String)

    var failureCode: String { "no-transcript" }
}

extension ListeningService {
    /// ``transcript(of:offered:title:refresh:)``, failing as a shell command does.
    func transcriptForShell(
        of episodeID: Int64,
        offered: [Transcript],
        title: String,
        refresh: Bool = false
    ) async throws(ShellError) -> StoredTranscript {
        do throws(TranscriptError) {
            return try await transcript(of: episodeID, offered: offered, title: title, refresh: refresh)
        } catch {
            switch error {
            case .missing(let episode): throw .failure(TranscriptFailure.missing(episode: episode))
            case .unreadable(let episode, let types):
                throw .failure(TranscriptFailure.unreadable(episode: episode, types: types))
            case .library(let error): throw .library(error)
            case .feed(let error): throw .feed(error)
            }
        }
    }
}

extension Command {
    private static let refresh = CommandFlag("refresh")
}
