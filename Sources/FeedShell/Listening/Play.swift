import Downloads
import FeedServices
import Foundation
import Library
import MediaKeys
import PlainText
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
                order (see 'help queue'): q in mpv goes on to the next, Ctrl-C stops;
                'play playlist NAME' plays a smart playlist the same way ('help playlist').
                'play bN' plays from bookmark N ('bookmarks' lists them); b in mpv marks
                one. --sleep 30m (or end, chapter) stops playback then, fading out over
                the last 10 seconds; 'sleep' in another feedsh changes it. The listening
                settings apply (see 'help set'): skip-silence, loudness, volume-boost,
                skip-intro (a play from the start begins after it), skip-outro (reaching
                it is the end) and skip-chapters. Every play is kept in the listening
                history ('stats', 'export history').
                With 'set sync auto on', a sync follows in the background.
                On a desktop (a D-Bus session bus), play is an MPRIS player while it
                runs: media keys, a headset's button and 'playerctl -p feedsh' see the
                episode and podcast, pause, seek, change the speed (Rate) and go to the
                next chapter (Next; at the last one, the next episode of 'play queue'
                or 'play playlist') or back (Previous: the chapter's start, or within
                its first 3 seconds the chapter before); Stop ends a queue's run. A
                place moved that way is saved as any other. 'set mpris off' turns it
                off.
                """,
            arguments: [played.spec],
            flags: [fromStart.spec, startAt.spec, chapter.spec, sleepAfter.spec]
        ),
        syncsAfter: true
    ) { arguments, context throws(ShellError) in
        let selector = try arguments.required(played)
        let start = try playStart(arguments)
        let sleep = arguments[sleepAfter]
        if selector.scope == .queue {
            return try await withMediaKeys(context) { media throws(ShellError) in
                try await playQueue(start: start, sleep: sleep, media, arguments, context)
            }
        }
        if case .playlist(let name) = selector.scope {
            return try await withMediaKeys(context) { media throws(ShellError) in
                try await playPlaylist(name, start: start, sleep: sleep, media, arguments, context)
            }
        }
        let (target, from) = try await context.session.playTarget(selector, start: start, synopsis: arguments.synopsis)
        return try await withMediaKeys(context) { media throws(ShellError) in
            try await playOne(target, start: from, sleep: sleep, media, arguments, context)
        }
    }

    /// Runs `body` with feedsh on the session bus as a media player (unless
    /// `set mpris off`, there is no bus, or the player is not mpv: another one
    /// cannot be followed or moved), and leaves the bus after it: one player for
    /// the whole of a `play queue`.
    private static func withMediaKeys<Result>(
        _ context: CommandContext,
        _ body: (MediaControl) async throws(ShellError) -> Result
    ) async throws(ShellError) -> Result {
        let remote = PlaybackRemote()
        let services = context.session.services
        let on = await services.library.settings().mpris
        let wanted = on ? await services.listening.player().isMPV : false
        let media = MediaControl(remote: remote, keys: wanted ? MediaKeys.start(remote: remote) : nil)
        let result: Result
        do {
            result = try await body(media)
        } catch {
            await media.keys?.stop()
            throw error
        }
        await media.keys?.stop()
        return result
    }

    /// Plays one episode or song in the foreground and records how it ended.
    /// `nextEpisode`: a run goes on after it (the media keys' Next may go there).
    private static func playOne(
        _ target: DownloadTarget,
        start: PlayStart,
        sleep: SleepTimer?,
        _ media: MediaControl,
        nextEpisode: Bool = false,
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) -> Played {
        let session = context.session
        var planned = try await session.services.listening.playbackPlan(
            for: target,
            start: start,
            sleep: sleep,
            synopsis: arguments.synopsis
        )
        planned.remote = media.remote
        planned.nextEpisode = nextEpisode
        let plan = planned
        media.keys?.nowPlaying(plan.nowPlaying)
        context.report(.playing(plan))
        context.holdOutput?(true)
        defer { context.holdOutput?(false) }
        let played: (end: PlaybackEnd, record: PositionRecord)
        do throws(PlaybackError) {
            played = try await session.play(plan, terminal: context.playerGetsTerminal) {
                context.report(.playback($0, plan))
            }
        } catch {
            throw .playback(error)
        }
        let (end, record) = played
        context.report(.playbackEnded(end, plan))
        if case .failed(let error) = record { context.report(.positionNotSaved("\(error)")) }
        if case .failed(let reason) = end.reason { throw .notPlayable(plan.source, reason: reason) }
        return Played(end: end, plan: plan, saved: record == .saved)
    }

    /// `play queue`: the queue's episodes in order, each from its saved position
    /// (the first from `start` when one was given). One played to the end leaves
    /// the queue (``Library/Library/mark(_:_:)``); quitting the player (`q`) goes
    /// on to the next; Ctrl-C, the player failing, or a sleep timer stops the run
    /// (`--sleep` counts across the queue: each episode gets what is left).
    private static func playQueue(
        start: PlayStart,
        sleep: SleepTimer?,
        _ media: MediaControl,
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) -> QueuePlayed {
        var targets = try await context.session.queueTargets()[...]
        guard !targets.isEmpty else { throw .failure(ListeningFailure.emptyQueue) }
        let plays = try await playThrough(start: start, sleep: sleep, media, arguments, context) {
            () throws(ShellError) in
            targets.popFirst().map { ($0, !targets.isEmpty) }
        }
        let left = try await QueueText.entries(context.session.libraryIfMade()).count
        return QueuePlayed(plays: plays, left: left)
    }

    /// `play playlist NAME`: as `play queue`, through the episodes the playlist
    /// holds, evaluated again after each (one played to the end may leave it, a
    /// new one arrive); an episode is played once in a run.
    private static func playPlaylist(
        _ name: String,
        start: PlayStart,
        sleep: SleepTimer?,
        _ media: MediaControl,
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) -> QueuePlayed {
        var done = Set<DownloadID>()
        let plays = try await playThrough(start: start, sleep: sleep, media, arguments, context) {
            () throws(ShellError) in
            let left = try await context.session.playlistTargets(name).filter { !done.contains($0.request.id) }
            guard let next = left.first else { return nil }
            done.insert(next.request.id)
            return (next, left.count > 1)
        }
        guard !plays.isEmpty else {
            throw .failure(
                PlaylistProblem(
                    code: "empty-playlist",
                    description:
                        "playlist '\(SafeText.line(name))' holds no episodes now ('playlist \(SafeText.line(name))' shows its filter)"
                )
            )
        }
        let left = try await context.session.playlistTargets(name).filter { !done.contains($0.request.id) }.count
        return QueuePlayed(plays: plays, left: left, playlist: name)
    }

    /// Plays episode after episode while `next` gives one (and whether another
    /// follows it): the first from `start`, the rest from their saved places.
    /// Ctrl-C, the player failing, the media keys' Stop or a sleep timer ends
    /// the run; a timer set with --sleep, or from another feedsh, goes on to the
    /// next with what is left.
    private static func playThrough(
        start: PlayStart,
        sleep: SleepTimer?,
        _ media: MediaControl,
        _ arguments: ParsedArguments,
        _ context: CommandContext,
        next: () async throws(ShellError) -> (DownloadTarget, more: Bool)?
    ) async throws(ShellError) -> [Played] {
        var plays: [Played] = []
        var sleep = sleep
        while let (target, more) = try await next() {
            let from = plays.isEmpty ? start : .saved
            let played = try await playOne(
                target,
                start: from,
                sleep: sleep,
                media,
                nextEpisode: more,
                arguments,
                context
            )
            context.report(.playedInQueue(played))
            plays.append(played)
            if Task.isCancelled { throw .interrupted }
            if played.end.slept || played.end.stopped { break }
            if case .exited(let exit) = played.end.reason, exit != .exited(0) { break }
            sleep = played.end.sleepLeft
        }
        return plays
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
            throw .usage(.startsTogether(given[0], given[1]), synopsis: arguments.synopsis)
        }
        if arguments[fromStart] { return .beginning }
        if let number = arguments[chapter] { return .chapter(number) }
        if let seconds = arguments[startAt] { return .at(seconds) }
        return .saved
    }
}

/// The media keys for one `play` command: the link to whichever episode
/// plays, and the player on the session bus (nil without one).
struct MediaControl: Sendable {
    let remote: PlaybackRemote
    let keys: MediaKeys?
}

/// How one playback ended: where, why, and whether the position was kept.
struct Played: CommandResult {
    let end: PlaybackEnd
    let plan: PlaybackPlan
    let saved: Bool
}

/// What `play queue` (or `play playlist NAME`) played, and how many entries
/// are left.
struct QueuePlayed: CommandResult {
    let plays: [Played]
    let left: Int
    /// The playlist played, nil for the queue.
    var playlist: String?
}

extension Command {
    private static let played = CommandArgument<Selector>(
        "N|P:E|tN|fN|bN|queue|playlist NAME",
        forms: [.subscription, .songs, .queue, .hits, .bookmarks, .playlist],
        noun: "episode",
        completion: .selector(CompletionDomain.episodes)
    )
    private static let fromStart = CommandFlag("from-start")
    private static let startAt = CommandOption<Double>("at", placeholder: "TIME", parse: PlayStart.seconds) {
        "--at takes a time such as 12:34, 1:02:03 or 95, not '\($0)'"
    }
    private static let chapter = CommandOption<Int>("chapter", range: 1...100_000)
    private static let sleepAfter = CommandOption<SleepTimer>(
        "sleep",
        placeholder: "TIME|end|chapter",
        parse: sleepTimer
    ) {
        "--sleep takes a time from 1s to 24h (30m, 1h, 1:30), end or chapter, not '\($0)'"
    }
}
