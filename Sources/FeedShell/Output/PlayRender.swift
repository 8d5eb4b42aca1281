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
    static func queuePlayed(_ played: Int, left: Int) -> String {
        "queue: \(played) played, \(left) left" + (left > 0 ? " ('queue' lists them)" : "")
    }
}

extension JSONRender {
    /// One episode's playback as `play --json` ends it.
    static func played(_ end: PlaybackEnd, plan: PlaybackPlan, saved: Bool) -> JSONValue {
        .object([
            "number": .string(plan.label.number), "title": .string(plan.label.title), "source": .string(plan.source),
            "position": end.position.map { .double($0) }, "duration": end.duration.map { .double($0) },
            "played": .bool(end.finished), "reason": .string(end.reason.name), "saved": .bool(saved),
        ])
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
        console.emit(
            event("stopped", ["position": end.position.map { .double($0) }, "reason": .string(end.reason.name)])
        )
        if end.finished { console.emit(event("played", [:])) }
    }

    private func json(_ event: PlaybackEvent) -> JSONValue? {
        switch event {
        case .started(let pid, let from, let speed, let duration):
            self.event(
                "started",
                [
                    // Always there, as documented: null until mpv knows the length.
                    "pid": .int(Int(pid)), "from": .double(from), "speed": speed.map { .double($0) } ?? .null,
                    "duration": duration.map { .double($0) } ?? .null,
                ]
            )
        case .position(let seconds, let duration):
            self.event("position", ["seconds": .double(seconds), "duration": duration.map { .double($0) }])
        case .chapter(let number):
            self.event(
                "chapter",
                [
                    "chapter": .int(number),
                    "chapterTitle": chapters.indices.contains(number - 1) ? .string(chapters[number - 1].title) : nil,
                ]
            )
        case .controlling:
            nil
        case .skippedChapter(let number, let title):
            self.event("skipped-chapter", ["chapter": .int(number), "chapterTitle": .string(title)])
        case .outro(let at):
            self.event("outro", ["seconds": .double(at)])
        case .bookmark(let at):
            self.event("bookmark", ["seconds": .double(at)])
        case .sleep(let timer, let remaining):
            self.event(
                "sleep",
                ["sleep": timer.map { .string($0.word) } ?? .null, "remaining": remaining.map { .double($0) }]
            )
        case .slept(let at):
            self.event("slept", ["seconds": .double(at)])
        }
    }

    private func event(_ name: String, _ details: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        guard case .object(let rest) = JSONValue.object(details) else { return .null }
        return .object(
            [
                .init(key: "event", value: .string(name)), .init(key: "number", value: .string(label.number)),
                .init(key: "title", value: .string(label.title)),
            ] + rest
        )
    }
}
