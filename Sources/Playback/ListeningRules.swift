import Foundation

/// When a sleep timer stops playback.
public enum SleepTimer: Sendable, Equatable, CustomStringConvertible {
    /// After this many seconds of wall time.
    case after(Double)
    /// At the end of the episode playing (`play queue` then stops).
    case endOfEpisode
    /// At the end of the chapter playing.
    case endOfChapter

    /// The longest timer: a day.
    public static let longest: Double = 86_400
    /// The volume fades out over this many seconds before the timer stops playback.
    public static let fade: Double = 10

    /// `end`, `chapter`, or seconds (`1800`) as ``word`` writes them; nil for
    /// anything else, 0 or past a day.
    public init?(word: String) {
        switch word {
        case "end": self = .endOfEpisode
        case "chapter": self = .endOfChapter
        default:
            guard let seconds = Double(word), seconds > 0, seconds <= Self.longest else { return nil }
            self = .after(seconds)
        }
    }

    /// The words another feedsh sends (``MPVCommand/scriptMessage(_:)``).
    public var word: String {
        switch self {
        case .after(let seconds): Player.seconds(seconds)
        case .endOfEpisode: "end"
        case .endOfChapter: "chapter"
        }
    }

    public var description: String { word }
}

/// The audio filters mpv plays through (its `af`), each only when it is wanted.
public struct AudioFilters: Sendable, Equatable {
    public var skipSilence: Bool
    public var loudness: Bool
    /// Decibels added, 0 to 12.
    public var volumeBoost: Double

    public init(skipSilence: Bool = false, loudness: Bool = false, volumeBoost: Double = 0) {
        self.skipSilence = skipSilence
        self.loudness = loudness
        self.volumeBoost = volumeBoost
    }

    /// The label of the filter whose metadata says where silences were (mpv's
    /// `af-metadata/LABEL`).
    public static let silenceLabel = "feedsh-silence"
    /// A pause this long (seconds) or longer is shortened...
    public static let shortestSilence = 1.0
    /// ...to this long.
    public static let keptSilence = 0.25
    /// Quieter than this is silence.
    static let threshold = "-50dB"

    /// The filters in order, each as mpv's `--af-append` takes one (after any the
    /// player command sets).
    ///
    /// Silence: FFmpeg's `silenceremove` shortens every pause of at least
    /// ``shortestSilence`` to ``keptSilence``. It renumbers the time it passes on,
    /// so `silencedetect` before it reports each pause in file time; from those,
    /// ``SilenceMap`` turns mpv's position back into the file's. Loudness:
    /// `dynaudnorm` with short frames evens out speakers and shows within about a
    /// second, keeping the timestamps; `loudnorm` took fourteen times the CPU and
    /// left a quiet speaker twice as far behind (docs/performance.md, "Loudness").
    /// Boost: `volume`.
    public var mpvFilters: [String] {
        var filters: [String] = []
        if skipSilence {
            let shortest = Player.seconds(Self.shortestSilence)
            filters.append("@\(Self.silenceLabel):lavfi=[silencedetect=n=\(Self.threshold):d=\(shortest)]")
            filters.append(
                "@feedsh-trim:lavfi=[silenceremove=stop_periods=-1:stop_duration=\(shortest)"
                    + ":stop_threshold=\(Self.threshold):stop_silence=\(Self.keptSilence)]"
            )
        }
        if loudness { filters.append("@feedsh-loudness:lavfi=[dynaudnorm=f=150:g=15:p=0.9]") }
        if volumeBoost > 0 { filters.append("@feedsh-boost:lavfi=[volume=\(Player.seconds(volumeBoost))dB]") }
        return filters
    }
}

/// Turns mpv's position, which silence skipping shortens, back into a position
/// in the file. Pure.
///
/// After a start or a seek, mpv's position is the file's. Each pause the
/// filters shorten afterwards (reported in file time, ahead of playback) moves
/// the two apart by its length less what is kept, from the point where the
/// shortened stream reaches it.
public struct SilenceMap: Sendable, Equatable {
    /// A shortened pause: where it collapses in mpv's time and what it removed.
    struct Cut: Sendable, Equatable {
        let at: Double
        let removed: Double
        let start: Double
    }

    private var anchor: Double?
    private var cuts: [Cut] = []
    /// The end of the last pause reported.
    private var lastEnd: Double?
    /// mpv repeats the last report when its filters start again after a seek;
    /// that repeat is ignored until playback has moved on from the seek.
    private var staleEnd: Double?

    public init() {}

    /// A start or a seek at file time `seconds` (mpv's position is the file's
    /// then): the filters start again.
    public mutating func restart(at seconds: Double) {
        anchor = seconds
        cuts = []
        staleEnd = lastEnd
    }

    /// mpv's position reached `seconds`.
    public mutating func passed(_ seconds: Double) {
        if let anchor, seconds > anchor + 0.5 { staleEnd = nil }
    }

    /// A pause from `start` to `end` in file time (from `silencedetect`); ignored
    /// when seen before, or before the last start.
    public mutating func silence(from start: Double, to end: Double) {
        guard end > start, end != staleEnd, !cuts.contains(where: { $0.start == start }) else { return }
        if let anchor, start < anchor - 0.5 { return }
        lastEnd = end
        let removedBefore = cuts.reduce(0) { $0 + $1.removed }
        let removed = max(0, end - start - AudioFilters.keptSilence)
        cuts.append(Cut(at: start + AudioFilters.keptSilence - removedBefore, removed: removed, start: start))
    }

    /// The file position at mpv's position `seconds`.
    public func file(_ seconds: Double) -> Double {
        seconds + removed(before: seconds)
    }

    /// Seconds removed up to mpv's position `seconds`.
    public func removed(before seconds: Double) -> Double {
        cuts.reduce(0) { $0 + ($1.at <= seconds + 0.001 ? $1.removed : 0) }
    }
}
