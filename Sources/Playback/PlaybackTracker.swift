import Processes

/// What happens while an episode plays, as values (the shell renders them).
public enum PlaybackEvent: Sendable, Equatable {
    /// The player runs (`pid`); with mpv, once the file is loaded: where it starts,
    /// at what speed (as mpv reports it) and how long the file is.
    case started(pid: Int32, from: Double, speed: Double?, duration: Double?)
    /// Playback moved on (at most one event a second of media time).
    case position(Double, duration: Double?)
    /// Playback entered chapter `number` (from 1), as mpv counts the chapters it
    /// has: those feedsh gave it, else the file's own.
    case chapter(Int)
}

/// How playback ended.
public struct PlaybackEnd: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// The file played to its end.
        case endOfFile
        /// The listener quit the player (or feedsh asked it to).
        case quit
        /// The player could not play it: mpv's reason.
        case failed(String)
        /// The player ended without saying why (a player without IPC, or mpv killed).
        case exited(ForegroundProcess.Exit)
    }

    public var reason: Reason
    /// The last position the player reported, in seconds (nil without IPC).
    public var position: Double?
    public var duration: Double?
    /// At the end of the file, past 95 % of it, or (without IPC) exited with status 0.
    public var finished: Bool

    public init(reason: Reason, position: Double?, duration: Double?, finished: Bool) {
        self.reason = reason
        self.position = position
        self.duration = duration
        self.finished = finished
    }
}

/// Turns mpv's IPC messages into ``PlaybackEvent``s and decides, when the player
/// exits, how playback ended. Pure: no sockets, no clock.
public struct PlaybackTracker: Sendable {
    /// The share of a file past which it counts as played.
    public static let playedFraction = 0.95

    let pid: Int32
    public private(set) var position: Double?
    public private(set) var duration: Double?
    private var speed: Double?
    /// mpv answered the speed request (it may answer before or after the first
    /// position).
    private var speedAnswered = false
    private var started = false
    private var lastReported: Double?
    private var endReason: String?
    private var endError: String?
    /// mpv's chapter index (from 0; -1 before the first chapter), once told.
    private var chapter: Int?

    /// The IDs of the observed properties and of the speed request, as
    /// ``commands`` sends them.
    static let timeID = 1
    static let durationID = 2
    static let speedRequest = 3
    static let chapterID = 4

    public init(pid: Int32) {
        self.pid = pid
    }

    /// What to send mpv once connected: mpv starts paused (`--pause`) so that
    /// nothing plays before feedsh watches, and is unpaused last.
    public static let commands: [MPVCommand] = [
        .observe("time-pos", id: timeID), .observe("duration", id: durationID), .get("speed", requestID: speedRequest),
        .observe("chapter", id: chapterID), .set("pause", false),
    ]

    /// Takes one message; returns the events it means.
    public mutating func handle(_ message: MPVMessage) -> [PlaybackEvent] {
        switch message {
        case .propertyChange("time-pos", let value?):
            position = value
            return startedIfReady() + positionEvent(value)
        case .propertyChange("duration", let value?):
            duration = value
            return []
        case .propertyChange("chapter", let value?):
            let index = Int(value)
            guard index != chapter else { return [] }
            chapter = index
            return index >= 0 ? [.chapter(index + 1)] : []
        case .reply(Self.speedRequest, let error, let value):
            speed = error == "success" ? value : nil
            speedAnswered = true
            return startedIfReady()
        case .playbackRestart:
            return startedIfReady()
        case .endFile(let reason, let error):
            endReason = reason
            endError = error
            return []
        default:
            return []
        }
    }

    /// `started`, once: when playback has begun and its position is known.
    private mutating func startedIfReady() -> [PlaybackEvent] {
        guard !started, speedAnswered, let position else { return [] }
        started = true
        lastReported = position
        return [.started(pid: pid, from: position, speed: speed, duration: duration)]
    }

    private mutating func positionEvent(_ value: Double) -> [PlaybackEvent] {
        guard started, let last = lastReported, abs(value - last) >= 1 else { return [] }
        lastReported = value
        return [.position(value, duration: duration)]
    }

    /// How playback ended, once the player exited with `exit`.
    public func end(_ exit: ForegroundProcess.Exit) -> PlaybackEnd {
        let reason: PlaybackEnd.Reason =
            switch endReason {
            case "eof": .endOfFile
            case "quit", "stop": .quit
            case "error": .failed(endError ?? "it could not be played")
            // mpv gave up before playing (a file it cannot open, a bad option) and
            // before saying why over its socket.
            case nil where !started && exit != .exited(0) && !exit.isSignal: .failed("mpv \(exit)")
            default: .exited(exit)
            }
        var finished = reason == .endOfFile
        if let position, let duration, duration > 0, position >= duration * Self.playedFraction {
            finished = true
        }
        return PlaybackEnd(reason: reason, position: position, duration: duration, finished: finished)
    }
}
