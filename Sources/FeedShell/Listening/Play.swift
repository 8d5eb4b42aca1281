import Foundation
import Library
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
                stopped and played events.
                """,
            arguments: [
                ArgumentSpec(
                    "N|tN",
                    kind: .selector([.subscription, .songs], noun: "episode"),
                    completion: .selector(CompletionDomain.episodes)
                )
            ],
            flags: [FlagSpec("from-start")]
        )
    ) { arguments, context throws(ShellError) in
        guard let selector = arguments.selector("N|tN") else { throw .usage(arguments.usage()) }
        let session = context.session
        // One episode or song: the forms the argument takes select no more.
        let targets = try await session.targets(selector, verb: "play", synopsis: arguments.synopsis)
        guard let target = targets.first else { throw .usage(arguments.usage()) }
        let request = target.request
        let marks = await session.marks[Int64(request.id) ?? 0]
        let reference = await session.libraryEpisode(request.id)
        let downloaded = FileManager.default.fileExists(atPath: request.file.final.path)
        let source = downloaded ? request.file.final.path : request.url.absoluteString
        let start = arguments.has("from-start") || marks?.played == true ? 0 : marks?.position ?? 0
        let settings = await session.settings()
        let player = await session.player()
        let console = context.console
        // The player gets the terminal whenever there is one (at the prompt, or a
        // script typed in one: its keys work, `q` stops it); a script reading its
        // input from a pipe, or --json, gives it none.
        let onTerminal = !console.json && console.isTerminal && isatty(STDIN_FILENO) == 1
        let label = target.label
        if !console.json {
            var line = "playing \(label.number): \(label.title)"
            if start > 0 { line += " from \(Formatting.duration(.seconds(start)))" }
            line += downloaded ? "" : " (streaming)"
            if settings.speed != 1 { line += " at \(Setting.decimal(settings.speed))×" }
            console.printError(line)
        }
        let library = reference == nil ? nil : await session.openedLibrary
        let recorder = PositionRecorder(library: library, episodeID: reference?.episode, console: console, label: label)
        let (events, continuation) = AsyncStream<PlaybackEvent>.makeStream()
        let follower = Task { await recorder.follow(events) }
        context.holdOutput?(true)
        defer { context.holdOutput?(false) }
        let end: PlaybackEnd
        do throws(PlaybackError) {
            end = try await Player.play(
                PlayRequest(
                    source: source,
                    title: label.title,
                    start: start,
                    speed: settings.speed,
                    terminal: onTerminal
                ),
                with: player
            ) { continuation.yield($0) }
        } catch {
            continuation.finish()
            await follower.value
            throw .playback(error)
        }
        continuation.finish()
        await follower.value
        // Saved in a task of its own: an interrupted `play` (Ctrl-C) still records
        // where it stopped, and the loaded subscription shows it.
        let saved = await Task {
            let saved = await recorder.finish(end)
            if saved, let loaded = await session.subscription?.podcast {
                _ = try? await session.loadSubscription(loaded)
            }
            return saved
        }.value
        if case .failed(let reason) = end.reason { throw .notPlayable(source, reason: reason) }
        context.output(
            playedText(end, label: label, saved: saved, player: player),
            json: .object([
                "number": .string(label.number), "title": .string(label.title), "source": .string(source),
                "position": end.position.map { .double($0) }, "duration": end.duration.map { .double($0) },
                "played": .bool(end.finished), "reason": .string(end.reason.name), "saved": .bool(saved),
            ])
        )
        return .proceed
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
            text += ": \(TerminalText.line(player.program)) \(exit)"
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

/// Saves a library episode's position while it plays (every few seconds) and when
/// it stops, and reports playback events as JSON lines with `--json`.
struct PositionRecorder: Sendable {
    /// How often the position is written while playing.
    static let saveInterval = Duration.seconds(5)

    let library: Library?
    let episodeID: Int64?
    let console: Console
    let label: DownloadLabel

    func follow(_ events: AsyncStream<PlaybackEvent>) async {
        var lastSave = ContinuousClock.now
        for await event in events {
            if console.json { console.emit(json(event)) }
            guard case .position(let seconds, _) = event, let library, let episodeID,
                ContinuousClock.now - lastSave >= Self.saveInterval
            else { continue }
            lastSave = .now
            try? await library.savePosition(episodeID, seconds: seconds)
        }
    }

    /// Records how playback ended: played, or the last position. True when the
    /// library has it.
    func finish(_ end: PlaybackEnd) async -> Bool {
        if console.json {
            console.emit(
                event("stopped", ["position": end.position.map { .double($0) }, "reason": .string(end.reason.name)])
            )
            if end.finished { console.emit(event("played", [:])) }
        }
        guard let library, let episodeID else { return false }
        do {
            if end.finished {
                try await library.mark([episodeID], .played)
            } else if let position = end.position {
                try await library.savePosition(episodeID, seconds: position)
            } else {
                return false
            }
            return true
        } catch {
            console.printError("warning: \(error)")
            return false
        }
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
