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
    /// feedsh controls the player through this socket (another feedsh's `sleep`
    /// reaches it there).
    case controlling(socket: String)
    /// Chapter `number`, titled `title`, held a word of `skip-chapters` and was
    /// jumped over.
    case skippedChapter(number: Int, title: String)
    /// The outro began at this file position: the episode counts as played.
    case outro(at: Double)
    /// The listener marked this file position (the bookmark key).
    case bookmark(at: Double)
    /// A sleep timer was set (nil: cancelled); `remaining` is its wall seconds
    /// when it counts time.
    case sleep(SleepTimer?, remaining: Double?)
    /// The sleep timer stopped playback at this file position.
    case slept(at: Double)
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
    /// What was heard and how long it took, for the listening history.
    public var listened = Listened()
    /// A sleep timer ended it (`play queue` stops).
    public var slept = false
    /// A remote control's Stop ended it (`play queue` stops too).
    public var stopped = false
    /// The sleep timer still running when it ended otherwise (a timed one with
    /// what is left): `play queue` hands it to the next episode.
    public var sleepLeft: SleepTimer?

    /// What one playback covered.
    public struct Listened: Sendable, Equatable {
        /// Seconds of the file heard (seeks left out), silences included.
        public var heard: Double = 0
        /// Seconds of wall time it took, pauses left out.
        public var wall: Double = 0
        /// Seconds of the file silence skipping left out.
        public var silenceSkipped: Double = 0

        public init(heard: Double = 0, wall: Double = 0, silenceSkipped: Double = 0) {
            self.heard = heard
            self.wall = wall
            self.silenceSkipped = silenceSkipped
        }
    }

    public init(reason: Reason, position: Double?, duration: Double?, finished: Bool) {
        self.reason = reason
        self.position = position
        self.duration = duration
        self.finished = finished
    }
}

/// What feedsh does while an episode plays, beyond following it: the listener's
/// rules for outros, chapters and sleep.
public struct PlaybackRules: Sendable, Equatable {
    /// Seconds before the end that count as the end (0: none).
    public var skipOutro: Double
    /// Chapters whose titles hold one of these words (case-insensitive) are
    /// jumped over.
    public var skipChapters: [String]
    public var sleep: SleepTimer?
    /// Positions are mapped back through ``SilenceMap`` (skip silence is on).
    public var silenceSkipped: Bool
    /// `b` in mpv marks a bookmark.
    public var bookmarkKey: Bool
    /// An episode follows this one (`play queue`, `play playlist`): a remote
    /// control's Next at the last chapter goes on to it.
    public var nextEpisode: Bool

    public init(
        skipOutro: Double = 0,
        skipChapters: [String] = [],
        sleep: SleepTimer? = nil,
        silenceSkipped: Bool = false,
        bookmarkKey: Bool = false,
        nextEpisode: Bool = false
    ) {
        self.skipOutro = skipOutro
        self.skipChapters = skipChapters
        self.sleep = sleep
        self.silenceSkipped = silenceSkipped
        self.bookmarkKey = bookmarkKey
        self.nextEpisode = nextEpisode
    }

    /// The key that marks a bookmark, and the message it sends.
    public static let bookmarkKeyName = "b"
    public static let bookmarkMessage = "feedsh-bookmark"
    /// The message another feedsh sends to set the sleep timer: its word follows.
    public static let sleepMessage = "feedsh-sleep"

    /// Whether `title` names a chapter to jump over.
    func skips(_ title: String) -> Bool {
        let title = title.lowercased()
        return skipChapters.contains { !$0.isEmpty && title.contains($0.lowercased()) }
    }
}

/// Turns mpv's IPC messages into ``PlaybackEvent``s, applies the listener's
/// ``PlaybackRules`` (the commands they need wait in ``takeCommands()``), and
/// decides, when the player exits, how playback ended. Pure: no sockets; the
/// time comes with each message (`at`, monotonic seconds).
public struct PlaybackTracker: Sendable {
    /// The share of a file past which it counts as played.
    public static let playedFraction = 0.95

    let pid: Int32
    /// The last file position seen.
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
    /// The chapter playing (from 0; -1 before the first), once known.
    private var chapter: Int?
    /// mpv's chapter list (file positions), once it gave one.
    private var chapters: [PlayRequest.Chapter]?
    /// The chapter last judged against `skip-chapters` (a play may start inside
    /// one before mpv's chapter list arrives).
    private var judged: Int?

    public private(set) var rules: PlaybackRules
    private var silence = SilenceMap()
    /// The next position is where the filters start again (a start or a seek).
    private var anchorPending = true
    private var pending: [MPVCommand] = []
    /// A seek feedsh asked for is under way: chapters are not judged until it lands.
    private var seeking = false
    private var outroReached = false
    private var slept = false
    /// When the sleep timer was set (monotonic seconds).
    private var sleepSetAt: Double?
    /// Where `sleep chapter` stops: the end of the chapter playing when it was set
    /// (a file position), once known.
    private var sleepUntil: Double?
    /// The volume before a fade, and the last one set.
    private var volume: Double = 100
    private var fadedTo: Double?
    /// The last mpv position and time, to add up what was heard.
    private var previous: (stream: Double, file: Double, at: Double)?
    private var listened = PlaybackEnd.Listened()
    /// The time of the last message or tick.
    private var lastNow: Double = 0
    /// The status line last given mpv while silence is skipped.
    private var statusLine: String?
    /// mpv starts paused (`--pause`) until feedsh unpauses it.
    private var paused = true
    /// The seeks that landed since the start.
    private var seeks = 0
    /// A remote control stopped the playback.
    private var stopped = false

    /// The IDs of the observed properties and of the requests, as ``commands``
    /// sends them.
    static let timeID = 1
    static let durationID = 2
    static let speedRequest = 3
    static let chapterID = 4
    static let chapterListID = 5
    static let silenceID = 6
    static let volumeRequest = 7
    static let pauseID = 8
    static let speedID = 9

    public init(pid: Int32, rules: PlaybackRules = PlaybackRules()) {
        self.pid = pid
        self.rules = rules
    }

    /// What to send mpv once connected for `rules`: mpv starts paused (`--pause`)
    /// so that nothing plays before feedsh watches, and is unpaused last.
    public static func commands(for rules: PlaybackRules) -> [MPVCommand] {
        var commands: [MPVCommand] = [
            .observe("time-pos", id: timeID), .observe("duration", id: durationID),
            .get("speed", requestID: speedRequest),
            .observe("chapter", id: chapterID), .observe("chapter-list", id: chapterListID),
            .get("volume", requestID: volumeRequest),
            .observe("pause", id: pauseID), .observe("speed", id: speedID),
        ]
        if rules.silenceSkipped { commands.append(.observe("af-metadata/\(AudioFilters.silenceLabel)", id: silenceID)) }
        if rules.bookmarkKey {
            commands.append(
                .keybind(PlaybackRules.bookmarkKeyName, "script-message \(PlaybackRules.bookmarkMessage)")
            )
        }
        return commands + [.set("pause", false)]
    }

    /// The commands the rules asked for since the last call, to send mpv.
    public mutating func takeCommands() -> [MPVCommand] {
        defer { pending = [] }
        return pending
    }

    /// Takes one message that arrived at `now`; returns the events it means.
    public mutating func handle(_ message: MPVMessage, at now: Double = 0) -> [PlaybackEvent] {
        lastNow = max(lastNow, now)
        switch message {
        case .propertyChange("time-pos", let value?):
            if anchorPending {
                silence.restart(at: value)
                anchorPending = false
                if started { seeks += 1 }
            }
            silence.passed(value)
            let file = rules.silenceSkipped ? silence.file(value) : value
            account(stream: value, file: file, at: now)
            position = file
            if rules.silenceSkipped { showFileTime(file) }
            var events = startedIfReady() + positionEvent(file)
            events += chapterEvents() + outroEvents() + sleepEvents(at: now)
            return events
        case .propertyChange("duration", let value?):
            duration = value
            return []
        case .propertyChange("pause", let value?):
            paused = value != 0
            return []
        case .propertyChange("speed", let value?) where speedAnswered:
            speed = value
            return []
        case .propertyChange("chapter", let value?):
            // Followed from the file position once mpv gave its chapter list.
            guard chapters == nil else { return [] }
            let index = Int(value)
            guard index != chapter else { return [] }
            chapter = index
            return index >= 0 ? [.chapter(index + 1)] : []
        case .chapterList(let list):
            chapters = list.isEmpty ? nil : list.sorted { $0.start < $1.start }
            judged = nil
            return chapterEvents()
        case .metadata(_, let values):
            if let end = values["lavfi.silence_end"].flatMap(Double.init),
                let length = values["lavfi.silence_duration"].flatMap(Double.init)
            {
                silence.silence(from: end - length, to: end)
            }
            return []
        case .clientMessage(let words):
            return clientMessage(words, at: now)
        case .seek:
            seeking = false
            previous = nil
            anchorPending = true
            return []
        case .reply(Self.speedRequest, let error, let value):
            speed = error == "success" ? value : nil
            speedAnswered = true
            return startedIfReady()
        case .reply(Self.volumeRequest, "success", let value?):
            volume = value
            return []
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

    /// The clock moved on without a message (the sleep timer counts while mpv is
    /// quiet, paused or not).
    public mutating func tick(at now: Double) -> [PlaybackEvent] {
        lastNow = max(lastNow, now)
        return sleepEvents(at: now)
    }

    /// `started`, once: when playback has begun and its position is known. A
    /// sleep timer given with the play starts counting then.
    private mutating func startedIfReady() -> [PlaybackEvent] {
        guard !started, speedAnswered, let position else { return [] }
        started = true
        lastReported = position
        var events: [PlaybackEvent] = [.started(pid: pid, from: position, speed: speed, duration: duration)]
        if let sleep = rules.sleep {
            sleepSetAt = lastNow
            events.append(.sleep(sleep, remaining: remaining(at: lastNow)))
        }
        return events
    }

    private mutating func positionEvent(_ value: Double) -> [PlaybackEvent] {
        guard started, let last = lastReported, abs(value - last) >= 1 else { return [] }
        lastReported = value
        return [.position(value, duration: duration)]
    }

    /// Adds what played since the last position to what was heard: only steps
    /// forward that playing (at the speed, plus any silence cut) explains, so that
    /// seeks and pauses add nothing.
    private mutating func account(stream: Double, file: Double, at now: Double) {
        defer { previous = (stream, file, now) }
        guard let previous, now > previous.at, now - previous.at < 2 else { return }
        let wall = now - previous.at
        let cut = rules.silenceSkipped ? silence.removed(before: stream) - silence.removed(before: previous.stream) : 0
        let heard = file - previous.file
        guard heard > 0, heard <= wall * max(speed ?? 1, 1) * 2 + cut + 0.5 else { return }
        listened.heard += heard
        listened.wall += wall
        listened.silenceSkipped += max(0, cut)
    }

    /// The chapter the position is in, from mpv's chapter list: `chapter` events,
    /// and a jump over a chapter to skip.
    private mutating func chapterEvents() -> [PlaybackEvent] {
        guard let chapters, let position, !seeking else { return [] }
        let index = chapters.lastIndex { $0.start <= position + 0.05 } ?? -1
        var events: [PlaybackEvent] = []
        if index != chapter {
            chapter = index
            if index >= 0 { events.append(.chapter(index + 1)) }
        }
        guard index != judged else { return events }
        judged = index
        guard index >= 0 else { return events }
        let title = chapters[index].title
        if rules.skips(title) {
            let next = chapters.dropFirst(index + 1).first { !rules.skips($0.title) }
            let target = next?.start ?? duration ?? position
            pending.append(.seek(target))
            pending.append(.showText("Skipped chapter: \(title)"))
            seeking = true
            events.append(.skippedChapter(number: index + 1, title: title))
        }
        return events
    }

    /// Reaching the outro ends the episode as played.
    private mutating func outroEvents() -> [PlaybackEvent] {
        guard rules.skipOutro > 0, !outroReached, let position, let duration, duration > rules.skipOutro + 1,
            position >= duration - rules.skipOutro
        else { return [] }
        outroReached = true
        pending.append(.quit)
        return [.outro(at: position)]
    }

    private mutating func clientMessage(_ words: [String], at now: Double) -> [PlaybackEvent] {
        switch words.first {
        case PlaybackRules.bookmarkMessage? where rules.bookmarkKey:
            guard let position else { return [] }
            pending.append(.showText("Bookmark at \(Self.clock(position))"))
            return [.bookmark(at: position)]
        case PlaybackRules.sleepMessage? where words.count == 2:
            sleepUntil = nil
            if words[1] == "off" {
                rules.sleep = nil
                sleepSetAt = nil
                if fadedTo != nil { pending.append(.setNumber("volume", volume)) }
                fadedTo = nil
                pending.append(.showText("Sleep timer off"))
                return [.sleep(nil, remaining: nil)]
            }
            guard let timer = SleepTimer(word: words[1]) else { return [] }
            rules.sleep = timer
            sleepSetAt = now
            pending.append(.showText("Sleep timer: " + Self.describe(timer)))
            return [.sleep(timer, remaining: remaining(at: now))] + sleepEvents(at: now)
        default:
            return []
        }
    }

    /// Wall seconds until the sleep timer stops playback; nil without one, or while
    /// what it waits for is unknown.
    public func remaining(at now: Double) -> Double? {
        guard let sleep = rules.sleep else { return nil }
        let speed = max(self.speed ?? 1, 0.01)
        switch sleep {
        case .after(let seconds):
            return seconds - (now - (sleepSetAt ?? now))
        case .endOfEpisode:
            guard let position, let duration else { return nil }
            return (duration - position) / speed
        case .endOfChapter:
            guard let position, let end = sleepUntil ?? chapterEnd(after: position) else { return nil }
            return (end - position) / speed
        }
    }

    /// The end of the chapter playing at `position`: the next one's start, else the
    /// file's end.
    private func chapterEnd(after position: Double) -> Double? {
        chapters?.first { $0.start > position + 0.05 }?.start ?? duration
    }

    /// The fade over the timer's last seconds, and the stop.
    private mutating func sleepEvents(at now: Double) -> [PlaybackEvent] {
        guard started, !slept, let sleep = rules.sleep else { return [] }
        if sleep == .endOfChapter, sleepUntil == nil, chapters != nil, let position {
            sleepUntil = chapterEnd(after: position)
        }
        guard let left = remaining(at: now) else { return [] }
        if left <= 0, sleep != .endOfEpisode {
            slept = true
            pending.append(.quit)
            return [.slept(at: position ?? 0)]
        }
        if left < SleepTimer.fade {
            let level = (volume * max(0, left) / SleepTimer.fade).rounded()
            if fadedTo.map({ abs($0 - level) >= 2 }) ?? true {
                fadedTo = level
                pending.append(.setNumber("volume", level))
            }
        }
        return []
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
        var finished = reason == .endOfFile || outroReached
        if let position, let duration, duration > 0, position >= duration * Self.playedFraction {
            finished = true
        }
        // mpv asked to start past the end reports that place and then fails: a
        // playback that failed heard nothing, whatever position it reported.
        if case .failed = reason { finished = false }
        var end = PlaybackEnd(reason: reason, position: position, duration: duration, finished: finished)
        end.listened = listened
        end.stopped = stopped
        let endedWithIt = (rules.sleep == .endOfEpisode || rules.sleep == .endOfChapter) && finished
        end.slept = slept || endedWithIt
        if !end.slept, let sleep = rules.sleep {
            if case .after = sleep {
                let left = remaining(at: lastNow) ?? 0
                end.sleepLeft = left >= 1 ? .after(left) : nil
                end.slept = left < 1
            } else {
                end.sleepLeft = sleep
            }
        }
        return end
    }

    /// What a remote control sees.
    public var playerState: PlayerState {
        PlayerState(
            paused: paused,
            position: position,
            duration: duration,
            speed: speed ?? 1,
            volume: fadedTo ?? volume,
            chapterStarts: chapters?.map(\.start) ?? [],
            nextEpisode: rules.nextEpisode,
            seeks: seeks
        )
    }

    /// Takes a remote control's command (``PlaybackRemote``); the mpv commands it
    /// needs wait in ``takeCommands()``. A move of the place is mpv's seek, so
    /// the place it lands on is saved as any other.
    public mutating func remote(_ command: RemoteCommand) -> [PlaybackEvent] {
        switch command {
        case .play: pending.append(.set("pause", false))
        case .pause: pending.append(.set("pause", true))
        case .playPause: pending.append(.set("pause", !paused))
        case .stop:
            stopped = true
            pending.append(.quit)
        case .seekBy(let offset):
            guard let position else { return [] }
            let target = max(0, position + offset)
            // Past the end is as Next (the MPRIS specification's Seek).
            if let duration, target >= duration { return remote(.next) }
            seek(to: target)
        case .seekTo(let target):
            guard target >= 0, target <= (duration ?? .infinity) else { return [] }
            seek(to: target)
        case .speed(let value):
            guard value.isFinite else { return [] }
            if value <= 0 { pending.append(.set("pause", true)) } else { pending.append(.setNumber("speed", value)) }
        case .volume(let value):
            guard value.isFinite else { return [] }
            volume = max(0, value)
            fadedTo = nil
            pending.append(.setNumber("volume", volume))
        case .next:
            if let start = playerState.nextChapter {
                seek(to: start)
            } else if rules.nextEpisode {
                pending.append(.quit)
            }
        case .previous:
            seek(to: playerState.previousPlace)
        }
        return []
    }

    private mutating func seek(to seconds: Double) {
        pending.append(.seek(seconds))
        seeking = true
    }

    /// How mpv's screen says when the timer stops playback.
    static func describe(_ timer: SleepTimer) -> String {
        switch timer {
        case .after(let seconds): "in " + clock(seconds)
        case .endOfEpisode: "at the end of the episode"
        case .endOfChapter: "at the end of the chapter"
        }
    }

    /// `12:34`, `1:02:03` (whole seconds, as the shell shows times).
    /// mpv's own status line counts the time it played, which skipping
    /// silence shortens: while it is on, the line shows the file's time (the
    /// place feedsh saves), given anew as each second passes.
    private mutating func showFileTime(_ file: Double) {
        let second = Double(Int(max(0, file.isFinite ? file : 0)))
        var line = "${?pause==yes:(Paused) }A: \(Self.clock(second))"
        if let duration, duration > 0 {
            line += " / \(Self.clock(duration)) (\(Int(min(100, second / duration * 100)))%)"
        }
        line += "${?speed!=1: x${speed}} (silence skipped)"
        guard line != statusLine else { return }
        statusLine = line
        pending.append(.setText(Self.statusOption, line))
    }

    /// The mpv option that holds the terminal's status line.
    static let statusOption = "term-status-msg"

    static func clock(_ seconds: Double) -> String {
        let whole = Int(min(max(0, seconds.isFinite ? seconds : 0), 1e9))
        let (hours, minutes, rest) = (whole / 3600, whole % 3600 / 60, whole % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
