import Foundation
import NIOCore
import NIOExtras
import NIOPosix
import PlainText
import Processes
import Synchronization

/// The program `play` runs, from the `player` setting or `FEEDSH_PLAYER`: `mpv`
/// (with options, controlled through its JSON IPC) or any other command, with `{}`
/// where the file or URL goes (else at the end).
///
/// The template is split into words as a shell would (quotes, backslashes) but
/// run without one: the file or URL is one word of the program's arguments,
/// whatever it holds and however the template quotes `{}`, so no enclosure URL
/// can run a command.
public struct PlayerCommand: Sendable, Equatable, CustomStringConvertible {
    public let template: String

    /// mpv as it is installed.
    public static let mpv = PlayerCommand("mpv")

    public init(_ template: String) {
        self.template = template.trimmingCharacters(in: .whitespaces)
    }

    /// The template's words; none when it does not parse as one command.
    private var words: [String] {
        guard let statements = try? Tokenizer.statements(template), statements.count == 1 else { return [] }
        return statements[0]
    }

    /// The program: the first word.
    public var program: String {
        words.first ?? ""
    }

    /// mpv, which feedsh controls and observes through its JSON IPC: positions are
    /// saved. Any other player only says whether it played to the end (status 0).
    public var isMPV: Bool { (program as NSString).lastPathComponent == "mpv" }

    public var description: String { template }

    /// The arguments that play `source` (the program first): mpv with `options`
    /// before the file, another player with the file where `{}` is (a word of its
    /// own, or inside one: `--file={}`), else at the end. An mpv template with `{}`
    /// gets its options just before that word (the rest of the template may be
    /// options meant to come after).
    public func arguments(source: String, options: [String] = []) -> [String] {
        let words = words
        let ours = isMPV ? options : []
        guard let at = words.firstIndex(where: { $0.contains("{}") }) else {
            return words + ours + (isMPV ? ["--", source] : [source])
        }
        return words[..<at] + ours + words[at...].map { $0.replacingOccurrences(of: "{}", with: source) }
    }
}

/// What to play, and how.
public struct PlayRequest: Sendable {
    /// A file's path or a URL.
    public var source: String
    /// Shown by mpv as the media title.
    public var title: String
    /// Where to start, in seconds.
    public var start: Double
    public var speed: Double
    /// The player gets the terminal (its keys and its status line); otherwise its
    /// input is /dev/null and mpv shows nothing (`--no-terminal`).
    public var terminal: Bool
    /// Chapters mpv is given (its chapter keys and `chapter-list` then have them),
    /// replacing any in the file; none leaves the file's own.
    public var chapters: [Chapter]
    /// The audio filters to play through.
    public var filters: AudioFilters
    /// What feedsh does while it plays: outros, chapters to skip, sleep.
    public var rules: PlaybackRules
    /// The remote control (media keys) that follows and moves this playback.
    public var remote: PlaybackRemote?

    /// A chapter: where it starts, in seconds, and its title.
    public struct Chapter: Sendable, Equatable {
        public var start: Double
        public var title: String

        public init(start: Double, title: String) {
            self.start = start
            self.title = title
        }
    }

    /// The most chapters mpv is handed (no episode has more).
    public static let mostChapters = 1000

    public init(
        source: String,
        title: String,
        start: Double = 0,
        speed: Double = 1,
        terminal: Bool,
        chapters: [Chapter] = [],
        filters: AudioFilters = AudioFilters(),
        rules: PlaybackRules = PlaybackRules(),
        remote: PlaybackRemote? = nil
    ) {
        self.source = source
        self.title = title
        self.start = start
        self.speed = speed
        self.terminal = terminal
        // A feed may name any number of chapters: 100,000 of them kept mpv busy
        // past the end of a minute's episode. The first ones in time are kept.
        self.chapters =
            chapters.count <= Self.mostChapters
            ? chapters : Array(chapters.sorted { $0.start < $1.start }.prefix(Self.mostChapters))
        self.filters = filters
        self.rules = rules
        self.rules.silenceSkipped = filters.skipSilence
        self.remote = remote
    }

    /// `chapters` as an FFmpeg metadata file, which mpv's `--chapters-file` reads:
    /// each chapter ends where the next starts (the last one day later; mpv only
    /// uses the starts). `=`, `;`, `#`, `\` and line breaks in titles are escaped.
    static func ffmetadata(_ chapters: [Chapter]) -> String {
        let sorted = chapters.sorted { $0.start < $1.start }
        var text = ";FFMETADATA1\n"
        // Milliseconds, from starts kept within 0...1e12 s so that Int64 cannot trap.
        func milliseconds(_ seconds: Double) -> Int64 {
            Int64((min(max(seconds.isFinite ? seconds : 0, 0), 1e12) * 1000).rounded())
        }
        for (index, chapter) in sorted.enumerated() {
            let start = milliseconds(chapter.start)
            let end = index + 1 < sorted.count ? milliseconds(sorted[index + 1].start) : start + 86_400_000
            var title = ""
            for character in chapter.title {
                if "=;#\\\n".contains(character) { title.append("\\") }
                title.append(character)
            }
            text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(start)\nEND=\(max(end, start))\ntitle=\(title)\n"
        }
        return text
    }
}

/// Why playback could not start.
public struct PlaybackError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case playerNotFound(PlayerCommand)
        case cannotStart(PlayerCommand, reason: String)
    }

    /// A stable, machine-readable name for the kind of error (`--json`'s `code`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        public static let playerNotFound = Code("player-not-found")
        public static let cannotStart = Code("player-failed")
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// The player's program is not installed (not in `PATH`).
    public static func playerNotFound(_ player: PlayerCommand) -> PlaybackError { .init(.playerNotFound(player)) }
    /// It could not be started, or its IPC directory could not be made.
    public static func cannotStart(_ player: PlayerCommand, reason: String) -> PlaybackError {
        .init(.cannotStart(player, reason: reason))
    }

    public var code: Code {
        switch kind {
        case .playerNotFound: .playerNotFound
        case .cannotStart: .cannotStart
        }
    }

    /// The player it concerns.
    public var player: PlayerCommand {
        switch kind {
        case .playerNotFound(let player), .cannotStart(let player, _): player
        }
    }

    public var description: String {
        switch kind {
        case .playerNotFound(let player) where player.isMPV && player.program == "mpv":
            "mpv is not installed: install it (Debian and Ubuntu: apt-get install mpv), or choose another player"
        case .playerNotFound(let player):
            "the player '\(SafeText.line(player.program))' is not installed or not in PATH"
        case .cannotStart(let player, let reason):
            "cannot start the player '\(SafeText.line(player.template))': \(reason)"
        }
    }
}

/// Plays one file or URL in the foreground and reports what happens.
public enum Player {
    /// Runs `player` on `request` until it exits, calling `events` as playback goes.
    /// Cancelling the calling task asks the player to quit; the end is still
    /// reported, with the last position.
    public static func play(
        _ request: PlayRequest,
        with player: PlayerCommand,
        events: @escaping @Sendable (PlaybackEvent) -> Void
    ) async throws(PlaybackError) -> PlaybackEnd {
        guard ForegroundProcess.find(player.program) != nil else { throw .playerNotFound(player) }
        var socketDirectory: String?
        var options: [String] = []
        if player.isMPV {
            let directory = try privateDirectory(for: player)
            socketDirectory = directory
            options = [
                "--input-ipc-server=\(directory)/mpv.sock", "--no-resume-playback", "--pause",
                "--start=\(seconds(request.start))", "--speed=\(seconds(request.speed))",
                "--force-media-title=\(request.title)",
                // A remote control's Previous within a chapter's first seconds goes
                // to the chapter before, as mpv's own key then does.
                "--chapter-seek-threshold=\(seconds(PlayerState.previousWithin))",
            ]
            if !request.terminal { options.append("--no-terminal") }
            options += request.filters.mpvFilters.map { "--af-append=\($0)" }
            if !request.chapters.isEmpty {
                let file = directory + "/chapters.txt"
                guard
                    FileManager.default.createFile(
                        atPath: file,
                        contents: Data(PlayRequest.ffmetadata(request.chapters).utf8)
                    )
                else {
                    rmdir(directory)
                    throw .cannotStart(player, reason: "cannot write the chapters to \(directory)")
                }
                options.append("--chapters-file=\(file)")
            }
        }
        defer {
            if let socketDirectory {
                unlink(socketDirectory + "/mpv.sock")
                unlink(socketDirectory + "/chapters.txt")
                rmdir(socketDirectory)
            }
        }
        let null = request.terminal ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        // Without the terminal, nothing the player prints may reach standard output
        // (where --json writes): it goes to standard error.
        guard
            let process = ForegroundProcess.start(
                arguments: player.arguments(source: request.source, options: options),
                input: request.terminal ? nil : null,
                output: request.terminal ? nil : STDERR_FILENO
            )
        else {
            throw .cannotStart(player, reason: "it could not be started")
        }
        let exit = Task { await process.exit() }
        let control = MPVControl()
        let follower: Task<PlaybackTracker, Never>? =
            socketDirectory.map { directory in
                Task {
                    await follow(
                        socket: directory + "/mpv.sock",
                        pid: process.pid,
                        rules: request.rules,
                        remote: request.remote,
                        until: exit,
                        control: control,
                        events: events
                    )
                }
            }
        if follower == nil { events(.started(pid: process.pid, from: 0, speed: nil, duration: nil)) }
        let status = await withTaskCancellationHandler {
            await exit.value
        } onCancel: {
            // mpv is asked to quit, as its `q` would, so that it ends cleanly; a player
            // without IPC (or an mpv not yet listening) gets SIGTERM.
            if !control.quit() { process.signal(SIGTERM) }
        }
        if status.notFound { throw .playerNotFound(player) }
        guard let follower else {
            return PlaybackEnd(reason: .exited(status), position: nil, duration: nil, finished: status == .exited(0))
        }
        // mpv closes the socket as it exits; a follower still waiting to connect stops.
        let tracker = await follower.value
        return tracker.end(status)
    }

    /// `12.5`, `3`: seconds as mpv's options take them.
    static func seconds(_ value: Double) -> String {
        // Int(value) traps past Int's range: such a value (never a real position)
        // is written as a decimal, and one that is no number at all as 0.
        guard value.isFinite else { return "0" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.3f", value)
    }

    /// A new directory only this user can enter, for mpv's socket.
    static func privateDirectory(for player: PlayerCommand) throws(PlaybackError) -> String {
        // A socket's path must fit in 108 bytes: XDG_RUNTIME_DIR when it is short.
        var base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/tmp"
        if base.utf8.count > 60 || access(base, W_OK) != 0 { base = "/tmp" }
        var template = Array((base + "/feedsh-play-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .cannotStart(
                player,
                reason: "cannot make a directory in \(base): \(String(cString: strerror(errno)))"
            )
        }
        return String(cString: made)
    }

    /// Connects to mpv's IPC socket (trying until it appears or the player exits),
    /// asks for the position, duration and speed, turns what mpv says into
    /// events and sends what `rules` need, until mpv closes the socket. A clock
    /// ticks four times a second for the sleep timer. A `remote` sees each
    /// state and its commands reach mpv in the order sent.
    static func follow(
        socket: String,
        pid: Int32,
        rules: PlaybackRules,
        remote: PlaybackRemote? = nil,
        until exit: Task<ForegroundProcess.Exit, Never>,
        control: MPVControl,
        events: @escaping @Sendable (PlaybackEvent) -> Void
    ) async -> PlaybackTracker {
        let tracker = SharedTracker(PlaybackTracker(pid: pid, rules: rules))
        var channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>?
        let exited = ExitWatch(exit)
        // mpv makes its socket within a few hundred milliseconds of starting.
        let deadline = ContinuousClock.now + .seconds(15)
        while channel == nil, !exited.done, ContinuousClock.now < deadline {
            channel = try? await connect(socket)
            if channel == nil { try? await Task.sleep(for: .milliseconds(20)) }
        }
        guard let channel else {
            // Never connected: mpv waits paused for feedsh, which cannot unpause it.
            if !exited.done { kill(pid, SIGTERM) }
            return tracker.value
        }
        let origin = ContinuousClock.now
        @Sendable func now() -> Double {
            let elapsed = ContinuousClock.now - origin
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        do {
            try await channel.executeThenClose { inbound, outbound in
                for command in PlaybackTracker.commands(for: rules) {
                    try await outbound.write(ByteBuffer(string: command.line))
                }
                control.connected(outbound)
                events(.controlling(socket: socket))
                @Sendable func apply(_ step: (inout PlaybackTracker) -> [PlaybackEvent]) -> [MPVCommand] {
                    let (happened, commands) = tracker.step(step)
                    for event in happened { events(event) }
                    if let remote { remote.publish(tracker.playerState) }
                    return commands
                }
                let (asked, asking) = AsyncStream<RemoteCommand>.makeStream()
                remote?.attach { asking.yield($0) }
                defer {
                    remote?.detach()
                    asking.finish()
                }
                let remoteControl = Task {
                    for await command in asked {
                        for line in apply({ $0.remote(command) }) {
                            try? await outbound.write(ByteBuffer(string: line.line))
                        }
                    }
                }
                defer { remoteControl.cancel() }
                let clock = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(250))
                        for command in apply({ $0.tick(at: now()) }) {
                            try? await outbound.write(ByteBuffer(string: command.line))
                        }
                    }
                }
                defer { clock.cancel() }
                for try await line in inbound {
                    guard let message = MPVMessage.parse(Array(line.readableBytesView)) else { continue }
                    for command in apply({ $0.handle(message, at: now()) }) {
                        try await outbound.write(ByteBuffer(string: command.line))
                    }
                }
            }
        } catch {
            // The socket broke (mpv was killed): what was seen stands.
        }
        return tracker.value
    }

    /// Sends `words` as a `script-message` to the mpv listening on `socket`
    /// (another feedsh's `play`); false when nothing answers there.
    public static func message(_ words: [String], to socket: String) async -> Bool {
        guard let channel = try? await connect(socket) else { return false }
        do {
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(string: MPVCommand.scriptMessage(words).line))
                // mpv answers each command; the answer says it was taken.
                for try await line in inbound
                where String(buffer: line).contains("\"error\"") {
                    break
                }
            }
            return true
        } catch {
            return false
        }
    }

    static func connect(_ path: String) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder()))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }
}

/// Sends mpv commands from outside the task that reads its socket (`quit` when
/// `play` is cancelled).
final class MPVControl: Sendable {
    private let writer = Mutex<NIOAsyncChannelOutboundWriter<ByteBuffer>?>(nil)

    func connected(_ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        writer.withLock { $0 = outbound }
    }

    /// Asks mpv to quit; false when not connected.
    func quit() -> Bool {
        guard let outbound = writer.withLock({ $0 }) else { return false }
        Task { try? await outbound.write(ByteBuffer(string: MPVCommand.quit.line)) }
        return true
    }
}

/// The tracker, shared by the task that reads mpv's socket and the clock that
/// ticks for the sleep timer.
final class SharedTracker: Sendable {
    private let state: Mutex<PlaybackTracker>

    init(_ tracker: PlaybackTracker) {
        state = Mutex(tracker)
    }

    var value: PlaybackTracker { state.withLock { $0 } }

    /// What a remote control sees, read without copying the tracker (it is
    /// published after every message mpv sends).
    var playerState: PlayerState { state.withLock { $0.playerState } }

    /// Runs `step` on the tracker; returns the events it gave and the commands
    /// it asked for.
    func step(_ step: (inout PlaybackTracker) -> [PlaybackEvent]) -> ([PlaybackEvent], [MPVCommand]) {
        state.withLock { tracker in
            let events = step(&tracker)
            return (events, tracker.takeCommands())
        }
    }
}

/// Whether a process has exited, to stop waiting for its socket.
final class ExitWatch: Sendable {
    private let flag = Mutex(false)

    init(_ exit: Task<ForegroundProcess.Exit, Never>) {
        Task {
            _ = await exit.value
            self.flag.withLock { $0 = true }
        }
    }

    var done: Bool { flag.withLock { $0 } }
}
