import Synchronization

/// What a remote control (the desktop's media keys, `playerctl`) asks of the
/// playback. Each is turned into mpv commands by ``PlaybackTracker/remote(_:)``.
public enum RemoteCommand: Sendable, Equatable {
    case play
    case pause
    case playPause
    /// Ends the playback and a `play queue` or `play playlist` run.
    case stop
    /// Moves the place by seconds (back when negative).
    case seekBy(Double)
    /// Moves the place to a second of the file.
    case seekTo(Double)
    case speed(Double)
    /// mpv's volume, 0 to 100 and more.
    case volume(Double)
    /// The next chapter; after the last, the next episode of the run (when there is one).
    case next
    /// The start of the chapter; within its first seconds, the previous chapter.
    case previous
}

/// What a remote control sees of the playback.
public struct PlayerState: Sendable, Equatable {
    public var paused: Bool
    /// Seconds into the file (nil until mpv says).
    public var position: Double?
    public var duration: Double?
    public var speed: Double
    /// mpv's volume (100 is the file's own level).
    public var volume: Double
    /// The chapters' starts, in time order (none when the file has none).
    public var chapterStarts: [Double]
    /// A `play queue` or `play playlist` run has an episode after this one.
    public var nextEpisode: Bool
    /// Counts the seeks that landed: a change says the place jumped.
    public var seeks: Int

    public init(
        paused: Bool = false,
        position: Double? = nil,
        duration: Double? = nil,
        speed: Double = 1,
        volume: Double = 100,
        chapterStarts: [Double] = [],
        nextEpisode: Bool = false,
        seeks: Int = 0
    ) {
        self.paused = paused
        self.position = position
        self.duration = duration
        self.speed = speed
        self.volume = volume
        self.chapterStarts = chapterStarts
        self.nextEpisode = nextEpisode
        self.seeks = seeks
    }

    /// How far before a chapter's start the place may read and still be in it:
    /// a paused mpv reads a seek's place up to 0.2 s early, and Next pressed
    /// again must go on to the chapter after.
    static let chapterSlack = 0.5

    /// The chapter after the place, to go to next.
    public var nextChapter: Double? {
        guard let position else { return nil }
        return chapterStarts.first { $0 > position + Self.chapterSlack }
    }

    /// Within this many seconds of a chapter's start, Previous goes to the chapter
    /// before it.
    public static let previousWithin = 3.0

    /// Where Previous goes: the start of the chapter playing, or within its first
    /// ``previousWithin`` seconds the previous chapter's (the file's start when
    /// there are no chapters).
    public var previousPlace: Double {
        guard let position else { return 0 }
        let starts = [0] + chapterStarts.filter { $0 > 0 }
        let index = starts.lastIndex { $0 <= position + Self.chapterSlack } ?? 0
        if position - starts[index] < Self.previousWithin, index > 0 { return starts[index - 1] }
        return starts[index]
    }
}

/// Joins a remote control to whichever playback runs: the player attaches as
/// it starts and detaches as it ends (one remote lasts a whole `play queue`),
/// and publishes its state; the remote sends commands and observes the state
/// (nil between episodes).
public final class PlaybackRemote: Sendable {
    private struct Links {
        var handler: (@Sendable (RemoteCommand) -> Void)?
        var observer: (@Sendable (PlayerState?) -> Void)?
        /// The state last published (nil while nothing plays): the same one
        /// again is not passed on.
        var state: PlayerState?
    }

    private let links = Mutex(Links())

    public init() {}

    /// Sends `command` to the playback; false while nothing plays.
    @discardableResult
    public func send(_ command: RemoteCommand) -> Bool {
        guard let handler = links.withLock({ $0.handler }) else { return false }
        handler(command)
        return true
    }

    /// Calls `observer` with each state the playback publishes.
    public func observe(_ observer: @escaping @Sendable (PlayerState?) -> Void) {
        links.withLock { $0.observer = observer }
    }

    func attach(_ handler: @escaping @Sendable (RemoteCommand) -> Void) {
        links.withLock { $0.handler = handler }
    }

    func publish(_ state: PlayerState) {
        let observer = links.withLock { links -> (@Sendable (PlayerState?) -> Void)? in
            guard links.state != state else { return nil }
            links.state = state
            return links.observer
        }
        observer?(state)
    }

    func detach() {
        let observer = links.withLock { links in
            links.handler = nil
            links.state = nil
            return links.observer
        }
        observer?(nil)
    }
}
