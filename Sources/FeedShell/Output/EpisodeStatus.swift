import Downloads
import FeedKit
import Library
import PlainText
import TerminalKit

/// What the shell says about an episode's download, from the engine while it runs
/// one and from the download folder for what is on disk: a `.part` left by an
/// earlier run shows as paused, and a file deleted since this session downloaded
/// it is not "downloaded" (the engine's memory of a download never outranks the
/// disk).
enum EpisodeStatus: Sendable, Equatable {
    case none
    case queued
    case downloading(DownloadProgress?)
    case paused(bytes: Int64, total: Int64?)
    case downloaded(bytes: Int64)
    case failed(String)

    init(engine: DownloadManager.State?, disk: DownloadLayout.Status) {
        switch engine {
        case .queued: self = .queued
        case .running(let progress): self = .downloading(progress)
        case .paused(let bytes, let total):
            if case .absent = disk { self = .none } else { self = .paused(bytes: bytes, total: total) }
        case .failed(let error): self = .failed(error.description)
        case .completed, .cancelled, nil:
            switch disk {
            case .absent: self = .none
            case .downloaded(let bytes): self = .downloaded(bytes: bytes)
            case .partial(let bytes, let total): self = .paused(bytes: bytes, total: total)
            }
        }
    }

    /// For the episodes table: `downloaded`, `41% paused`, `41% downloading`,
    /// `queued`, `failed: reason`.
    /// Queued or downloading.
    var isActive: Bool {
        switch self {
        case .queued, .downloading: true
        default: false
        }
    }

    /// Paused or failed: `resume` continues it.
    var isResumable: Bool {
        switch self {
        case .paused, .failed: true
        default: false
        }
    }

    var isDownloaded: Bool {
        if case .downloaded = self { true } else { false }
    }

    /// Neither on disk whole nor queued or running: `get` (and auto-download)
    /// starts it.
    var isStartable: Bool { !isDownloaded && !isActive }

    var text: String {
        switch self {
        case .none: ""
        case .queued: "queued"
        case .downloading(let progress?) where progress.bytes > 0:
            "\(Formatting.percent(progress.bytes, of: progress.total)) downloading"
        case .downloading: "downloading"
        case .paused(let bytes, let total) where bytes > 0: "\(Formatting.percent(bytes, of: total)) paused"
        case .paused: "paused"
        case .downloaded: "downloaded"
        case .failed(let reason): "failed: \(reason)"
        }
    }
}

extension DownloadProgress {
    /// As the terminal shows it: `37.5% of 48.1 MB, 3.2 MB/s, ETA 0:09`.
    var reading: ProgressReading {
        ProgressReading(bytes: bytes, total: total, bytesPerSecond: bytesPerSecond, eta: eta)
    }
}

/// How the shell names a download in messages: its number (`3`, `t2`) and title;
/// and, for `downloads` and `--json`, its address from any shell and its podcast.
struct DownloadLabel: Sendable, Equatable, CustomStringConvertible {
    /// What the person typed it by (`3`, `t2`, `n1`, an image's URL), made safe.
    let number: String
    /// Made safe as the label is made: whatever shows a label prints it as it is.
    let title: String
    /// `P:E` for a subscription's episode; nil where the number is the address.
    var ref: String?
    /// The title of the podcast an episode belongs to, as sent (JSON gives it so;
    /// rendering makes it safe).
    var podcast: String?
    /// The library episode downloaded, by identity: what a finished download, a
    /// `delete` or a `play` records its state on.
    var episode: EpisodeRef?

    init(number: String, title: String, ref: String? = nil, podcast: String? = nil, episode: EpisodeRef? = nil) {
        self.number = SafeText.line(number)
        self.title = SafeText.line(title)
        self.ref = ref
        self.podcast = podcast
        self.episode = episode
    }

    /// The download's address: `P:E`, else its number.
    var address: String { ref ?? number }

    /// The same download, named by its address (`2:3`, not the `3` typed with
    /// podcast 2 loaded): for what is said with no podcast loaded.
    var byAddress: DownloadLabel {
        DownloadLabel(number: address, title: title, ref: ref, podcast: podcast, episode: episode)
    }

    /// `3 Title`.
    var description: String { title.isEmpty ? number : "\(number) \(title)" }
}
