import Foundation
import Library
import Playback
import ShellKit

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
                With 'set sync auto on', a sync follows in the background.
                """,
            arguments: [played.spec],
            flags: [fromStart.spec, startAt.spec, chapter.spec]
        ),
        syncsAfter: true
    ) { arguments, context throws(ShellError) in
        let selector = try arguments.required(played)
        let start = try playStart(arguments)
        if selector.scope == .queue {
            try await playQueue(start: start, arguments, context)
            return .proceed
        }
        let (target, from) = try await context.session.playTarget(selector, start: start, synopsis: arguments.synopsis)
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
        if !console.json { console.printError(Render.playing(plan)) }
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
            Render.played(end, label: label, saved: saved, player: plan.player),
            JSONRender.played(end, plan: plan, saved: saved),
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
        context.output(Render.queuePlayed(played, left: left), json: .array(results))
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
