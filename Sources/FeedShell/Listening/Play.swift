import Foundation
import Library
import PlainText
import Playback
import ShellKit
import TerminalKit

extension Command {
    static let play = Command(
        CommandSpec(
            "play",
            summary: "play an episode (or song preview tN) through mpv, from where you stopped",
            details: """
                Plays the downloaded file when there is one, else the stream, in the
                foreground: mpv's own keys work (space pauses, arrows seek, q quits) and
                the prompt comes back when it exits. A subscription's episode starts at
                its saved position (--from-start: the beginning); the position is saved
                every few seconds and when
                playback stops, and the episode is marked played at the end (or past
                95 %). Speed comes from 'set speed'. Another player can be chosen with
                'set player "mpg123 {}"' or FEEDSH_PLAYER: feedsh then only marks the
                episode played when the player exits with status 0. From a script, play
                waits until playback ends; with --json it reports started, position,
                stopped and played events (and chapter, as playback enters one).
                When the episode's feed names chapters (podcast:chapters), mpv is given
                them: its chapter keys (PgUp, PgDn) move between them. --at TIME starts
                there (12:34, 1:02:03 or seconds) and --chapter K at chapter K
                ('chapters N' lists them). 'play fN' plays hit N of the last 'find',
                from where its words were said. 'play queue' plays the play queue in
                order (see 'help queue'): q in mpv goes on to the next, Ctrl-C stops.
                """,
            arguments: [played.spec],
            flags: [fromStart.spec, startAt.spec, chapter.spec]
        )
    ) { arguments, context throws(ShellError) in
        let selector = try arguments.required(played)
        let start = try playStart(arguments)
        if selector.scope == .queue {
            try await playQueue(start: start, arguments, context)
            return .proceed
        }
        // One episode or song: the forms the argument takes select no more.
        var target: DownloadTarget
        var from = start
        if selector.scope == .hits {
            // A transcript hit starts where its words were said.
            guard let hit = try await context.session.hitTargets(selector, synopsis: arguments.synopsis).first else {
                throw .usage(arguments.usage())
            }
            target = hit.target
            if from == .saved, let at = hit.at { from = .at(at) }
        } else {
            let targets = try await context.session.targets(selector, verb: "play", synopsis: arguments.synopsis)
            guard let first = targets.first else { throw .usage(arguments.usage()) }
            target = first
        }
        let (text, json, _) = try await playOne(target, start: from, arguments, context)
        context.output(text, json: json)
        return .proceed
    }

    /// Plays one episode or song in the foreground and records how it ended: what
    /// to say, its JSON, and how it ended.
    private static func playOne(
        _ target: DownloadTarget,
        start: PlayStart,
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) -> (text: String, json: JSONValue, end: PlaybackEnd) {
        let session = context.session
        let plan = try await session.playbackPlan(for: target, start: start, synopsis: arguments.synopsis)
        let console = context.console
        // The player gets the terminal whenever there is one (at the prompt, or a
        // script typed in one: its keys work, `q` stops it); a script reading its
        // input from a pipe, or --json, gives it none.
        let onTerminal = !console.json && console.isTerminal && isatty(STDIN_FILENO) == 1
        let label = plan.label
        if !console.json {
            var line = "playing \(label.number): \(label.title)"
            if plan.start > 0 { line += " from \(Formatting.duration(.seconds(plan.start)))" }
            line += plan.streaming ? " (streaming)" : ""
            if plan.speed != 1 { line += " at \(Setting.decimal(plan.speed))×" }
            console.printError(line)
        }
        context.holdOutput?(true)
        defer { context.holdOutput?(false) }
        let events = PlaybackEvents(console: console, label: label, chapters: plan.chapters)
        let played: (end: PlaybackEnd, record: PositionRecord)
        do throws(PlaybackError) {
            played = try await session.play(plan, terminal: onTerminal) { events.report($0) }
        } catch {
            throw .playback(error)
        }
        let (end, record) = played
        events.reportEnd(end)
        if case .failed(let error) = record { console.printError("warning: \(error)") }
        if case .failed(let reason) = end.reason { throw .notPlayable(plan.source, reason: reason) }
        let saved = record == .saved
        return (
            playedText(end, label: label, saved: saved, player: plan.player),
            .object([
                "number": .string(label.number), "title": .string(label.title), "source": .string(plan.source),
                "position": end.position.map { .double($0) }, "duration": end.duration.map { .double($0) },
                "played": .bool(end.finished), "reason": .string(end.reason.name), "saved": .bool(saved),
            ]),
            end
        )
    }

    /// `play queue`: the queue's episodes in order, each from its saved position
    /// (the first from `start` when one was given). One played to the end leaves
    /// the queue (``Library/Library/mark(_:_:)``); quitting the player (`q`) goes
    /// on to the next; Ctrl-C, or the player failing, stops the run.
    private static func playQueue(
        start: PlayStart,
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) {
        let targets = try await context.session.queueTargets()
        guard !targets.isEmpty else { throw .failure(ListeningFailure.emptyQueue) }
        var results: [JSONValue] = []
        var played = 0
        for (index, target) in targets.enumerated() {
            let (text, json, end) = try await playOne(
                target,
                start: index == 0 ? start : .saved,
                arguments,
                context
            )
            if !context.console.json { context.console.printError(text) }
            results.append(json)
            if end.finished { played += 1 }
            if Task.isCancelled { throw .interrupted }
            if case .exited(let exit) = end.reason, exit != .exited(0) { break }
        }
        let left = try await QueueText.entries(context.session.libraryIfMade()).count
        context.output(
            "queue: \(played) played, \(left) left" + (left > 0 ? " ('queue' lists them)" : ""),
            json: .array(results)
        )
    }

    /// Where `--from-start`, `--at` or `--chapter` (at most one of them) says to
    /// start.
    private static func playStart(_ arguments: ParsedArguments) throws(ShellError) -> PlayStart {
        let given = [
            arguments[fromStart] ? fromStart.spec.name : nil,
            arguments[startAt] != nil ? startAt.spec.name : nil,
            arguments[chapter] != nil ? chapter.spec.name : nil,
        ].compactMap { $0 }
        guard given.count <= 1 else {
            throw .usage("--\(given[0]) and --\(given[1]) cannot go together", synopsis: arguments.synopsis)
        }
        if arguments[fromStart] { return .beginning }
        if let number = arguments[chapter] { return .chapter(number) }
        if let seconds = arguments[startAt] { return .at(seconds) }
        return .saved
    }

    /// `played 3: Title`, or `stopped 3 at 1:23 of 20:00`.
    private static func playedText(_ end: PlaybackEnd, label: DownloadLabel, saved: Bool, player: PlayerCommand)
        -> String
    {
        if end.finished { return "played \(label.number): \(label.title)" + (saved ? "" : " (not in the library)") }
        var text = "stopped \(label.number)"
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
        if console.json { console.emit(json(event)) }
    }

    /// `stopped`, and `played` when it played to the end.
    func reportEnd(_ end: PlaybackEnd) {
        guard console.json else { return }
        console.emit(
            event("stopped", ["position": end.position.map { .double($0) }, "reason": .string(end.reason.name)])
        )
        if end.finished { console.emit(event("played", [:])) }
    }

    private func json(_ event: PlaybackEvent) -> JSONValue {
        switch event {
        case .started(let pid, let from, let speed, let duration):
            self.event(
                "started",
                [
                    "pid": .int(Int(pid)), "from": .double(from), "speed": speed.map { .double($0) },
                    "duration": duration.map { .double($0) },
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

extension Command {
    private static let played = CommandArgument<Selector>(
        "N|tN|fN|queue",
        forms: [.subscription, .songs, .queue, .hits],
        noun: "episode",
        completion: .selector(CompletionDomain.episodes)
    )
    private static let fromStart = CommandFlag("from-start")
    private static let startAt = CommandOption<Double>("at", placeholder: "TIME", parse: PlayStart.seconds) {
        "--at takes a time such as 12:34, 1:02:03 or 95, not '\($0)'"
    }
    private static let chapter = CommandOption<Int>("chapter", range: 1...100_000)
}
