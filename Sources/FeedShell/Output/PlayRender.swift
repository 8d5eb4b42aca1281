import Downloads
import FeedServices
import Library
import PlainText
import Playback
import TerminalKit

extension Render {
    /// `playing 3: Title from 12:34 (streaming) at 1.5×`, said as the player starts.
    static func playing(_ plan: PlaybackPlan) -> String {
        var line = "playing \(plan.label.number): \(plan.label.title)"
        if plan.start > 0 { line += " from \(Formatting.duration(.seconds(plan.start)))" }
        line += plan.streaming ? " (streaming)" : ""
        if plan.speed != 1 { line += " at \(Setting.decimal(plan.speed))×" }
        return line
    }

    /// `played 3: Title`, or `stopped 3 at 1:23 of 20:00`, with the player's exit
    /// when it failed and a word when the position could not be kept.
    static func played(_ end: PlaybackEnd, label: DownloadLabel, saved: Bool, player: PlayerCommand) -> String {
        // A label is safe from its init.
        let number = label.number
        if end.finished {
            return "played \(number): \(label.title)" + (saved ? "" : " (not in the library)")
        }
        var text = "stopped \(number)"
        if let position = end.position {
            text += " at \(Formatting.duration(.seconds(position)))"
            if let duration = end.duration { text += " of \(Formatting.duration(.seconds(duration)))" }
        }
        if case .exited(let exit) = end.reason, exit != .exited(0) {
            text += ": \(SafeText.line(player.program)) \(exit)"
        }
        if end.position != nil, !saved { text += " (not in the library: subscribe to keep positions)" }
        return text
    }

    /// `in 29:58`, `at the end of the episode`, `at the end of the chapter`.
    static func sleepTimer(_ timer: SleepTimer, remaining: Double?) -> String {
        switch timer {
        case .after(let seconds): "stops in \(Formatting.duration(.seconds(remaining ?? seconds)))"
        case .endOfEpisode: "stops at the end of the episode"
        case .endOfChapter: "stops at the end of the chapter"
        }
    }

    /// `queue: 2 played, 1 left ('queue' lists them)`, after `play queue`.
    static func queuePlayed(_ played: Int, left: Int, playlist: String? = nil) -> String {
        guard let playlist else {
            return "queue: \(played) played, \(left) left" + (left > 0 ? " ('queue' lists them)" : "")
        }
        let name = SafeText.line(playlist)
        return "playlist \(name): \(played) played, \(left) left" + (left > 0 ? " ('playlist \(name)' lists them)" : "")
    }
}

extension JSONRender {
    /// One episode's playback as `play --json` ends it.
    static func played(_ end: PlaybackEnd, plan: PlaybackPlan, saved: Bool) -> JSONValue {
        JSONValue(
            encoding: PlayedJSON(
                number: plan.label.number,
                title: plan.label.title,
                source: plan.source,
                position: end.position,
                duration: end.duration,
                played: end.finished,
                reason: end.reason.name,
                saved: saved
            )
        )
    }

    /// `play --json`'s result: where one episode's playback ended.
    private struct PlayedJSON: Encodable {
        var number: String
        var title: String
        var source: String
        /// Left out when mpv never said.
        var position: Double?
        var duration: Double?
        var played: Bool
        var reason: String
        var saved: Bool
    }
}

extension PlaybackEnd.Reason {
    /// How `--json` names it.
    var name: String {
        switch self {
        case .endOfFile: "end-of-file"
        case .quit: "quit"
        case .failed: "failed"
        case .exited(.signaled): "killed"
        case .exited: "exited"
        }
    }
}

/// Playback's events as JSON lines with `--json` (nothing otherwise: the player
/// has the screen).
struct PlaybackEvents: Sendable {
    let console: Console
    let label: DownloadLabel
    /// The chapters mpv was given, to name the one playback enters.
    var chapters: [PlayRequest.Chapter] = []

    func report(_ event: PlaybackEvent) {
        if console.json {
            if let line = json(event) { console.emit(line) }
        } else if let note = note(event) {
            console.printOverStatusLine(note)
        }
    }

    /// What a person is told of the listening rules at work (mpv's own screen
    /// says so too).
    private func note(_ event: PlaybackEvent) -> String? {
        switch event {
        case .skippedChapter(let number, let title):
            SafeLine("skipped chapter \(number): \(title)").description
        case .outro(let at):
            "outro at \(Formatting.duration(.seconds(at))): \(label.number) counts as played"
        case .bookmark(let at):
            "bookmarked \(label.number) at \(Formatting.duration(.seconds(at))) ('bookmarks' lists them)"
        case .sleep(let timer?, let remaining):
            "sleep timer: " + Render.sleepTimer(timer, remaining: remaining)
        case .sleep(nil, _):
            "sleep timer off"
        case .slept(let at):
            "sleep timer: stopped at \(Formatting.duration(.seconds(at)))"
        case .started, .position, .chapter, .controlling:
            nil
        }
    }

    /// `stopped`, and `played` when it played to the end.
    func reportEnd(_ end: PlaybackEnd) {
        guard console.json else { return }
        console.emit(event("stopped", Stopped(position: end.position, reason: end.reason.name)))
        if end.finished { console.emit(event("played", Nothing())) }
    }

    private func json(_ event: PlaybackEvent) -> JSONValue? {
        switch event {
        case .started(let pid, let from, let speed, let duration):
            // `speed` and `duration` always there, as documented: null until mpv knows.
            self.event("started", Started(pid: Int(pid), from: from, speed: speed, duration: duration))
        case .position(let seconds, let duration):
            self.event("position", Position(seconds: seconds, duration: duration))
        case .chapter(let number):
            self.event(
                "chapter",
                ChapterReached(
                    chapter: number,
                    chapterTitle: chapters.indices.contains(number - 1) ? chapters[number - 1].title : nil
                )
            )
        case .controlling:
            nil
        case .skippedChapter(let number, let title):
            self.event("skipped-chapter", ChapterReached(chapter: number, chapterTitle: title))
        case .outro(let at):
            self.event("outro", At(seconds: at))
        case .bookmark(let at):
            self.event("bookmark", At(seconds: at))
        case .sleep(let timer, let remaining):
            self.event("sleep", Sleep(sleep: timer?.word, remaining: remaining))
        case .slept(let at):
            self.event("slept", At(seconds: at))
        }
    }

    /// `{"event", "number", "title"}` and the event's own keys after them.
    private func event(_ name: String, _ details: some Encodable) -> JSONValue {
        JSONValue(encoding: EventLine(event: name, number: label.number, title: label.title, details: details))
    }
}

/// A playback event's line: its name and the episode, then the event's keys.
private struct EventLine<Details: Encodable>: Encodable {
    private enum CodingKeys: String, CodingKey { case event, number, title }

    let event: String
    let number: String
    let title: String
    let details: Details

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try container.encode(number, forKey: .number)
        try container.encode(title, forKey: .title)
        try details.encode(to: encoder)
    }
}

private struct Nothing: Encodable {}

private struct Started: Encodable {
    var pid: Int
    var from: Double
    @Nullable var speed: Double?
    @Nullable var duration: Double?
}

private struct Position: Encodable {
    var seconds: Double
    /// Left out until mpv knows the length.
    var duration: Double?
}

private struct ChapterReached: Encodable {
    var chapter: Int
    /// Left out when the chapter has no title.
    var chapterTitle: String?
}

private struct At: Encodable {
    var seconds: Double
}

private struct Sleep: Encodable {
    @Nullable var sleep: String?
    var remaining: Double?
}

private struct Stopped: Encodable {
    var position: Double?
    var reason: String
}
