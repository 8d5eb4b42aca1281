import FeedServices
import Library
import Playback
import ShellKit

extension Command {
    static let sleep = Command(
        CommandSpec(
            "sleep",
            summary: "set the sleep timer of the play running in another feedsh (30m, end, chapter, off)",
            details: """
                A play holds its terminal, so the sleep timer is set from another shell:
                'sleep 30m' stops playback in 30 minutes, 'sleep end' at the end of the
                episode (and 'play queue' stops there), 'sleep chapter' at the end of the
                chapter; 'sleep off' cancels it. The volume fades over the last 10
                seconds and the position is saved where it stopped. 'sleep' alone says
                what is left. 'play N --sleep 30m' sets one as playback starts.
                """,
            arguments: [timer.spec]
        )
    ) { arguments, context throws(ShellError) in
        // A value that is no timer is refused first, playing or not.
        let word = arguments[timer]
        let timer: SleepTimer?
        switch word {
        case nil, "off": timer = nil
        case let word?:
            guard let parsed = sleepTimer(word) else { throw .usage(.badSleep(word), synopsis: arguments.synopsis) }
            timer = parsed
        }
        guard let link = PlayerLink.current() else { throw .failure(ListeningFailure.nothingPlaying) }
        guard word != nil else {
            let current = link.timer
            return SleepShown(playing: link.playing, timer: current?.0, remaining: current?.remaining, changed: false)
        }
        let sent = await Player.message([PlaybackRules.sleepMessage, timer?.word ?? "off"], to: link.socket)
        guard sent else { throw .failure(ListeningFailure.nothingPlaying) }
        var remaining: Double?
        if case .after(let seconds) = timer { remaining = seconds }
        return SleepShown(playing: link.playing, timer: timer, remaining: remaining, changed: true)
    }

    /// `30m`, `1h`, `1:30`, `90`, `end`, `chapter`: a timer from 1 s to a day.
    static func sleepTimer(_ text: String) -> SleepTimer? {
        switch text.lowercased() {
        case "end": return .endOfEpisode
        case "chapter": return .endOfChapter
        default:
            guard let seconds = ListeningTime.seconds(text), seconds >= 1, seconds <= SleepTimer.longest else {
                return nil
            }
            return .after(seconds)
        }
    }

    private static let timer = CommandArgument<String>(
        "TIME|end|chapter|off",
        optional: true,
        completion: .words(["end", "chapter", "off", "15m", "30m", "1h"])
    )
}

/// The sleep timer of the running play: as set now, or as it stands.
struct SleepShown: CommandResult {
    /// What plays: `2:3 Title`.
    let playing: String
    /// Nil: none (or cancelled).
    let timer: SleepTimer?
    /// Wall seconds left, for a timed one.
    let remaining: Double?
    /// `sleep WORD` set it (rather than asked).
    let changed: Bool
}
