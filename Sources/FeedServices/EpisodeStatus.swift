import Downloads
import FeedKit
import Library
import PlainText

/// What the shell says about an episode's download, from the engine while it runs
/// one and from the download folder for what is on disk: a `.part` left by an
/// earlier run shows as paused, and a file deleted since this session downloaded
/// it is not "downloaded" (the engine's memory of a download never outranks the
/// disk).
package enum EpisodeStatus: Sendable, Equatable {
    case none
    case queued
    case downloading(DownloadProgress?)
    case paused(bytes: Int64, total: Int64?)
    case downloaded(bytes: Int64)
    case failed(String)

    package init(engine: DownloadManager.State?, disk: DownloadLayout.Status) {
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
    package var isActive: Bool {
        switch self {
        case .queued, .downloading: true
        default: false
        }
    }

    /// Paused or failed: `resume` continues it.
    package var isResumable: Bool {
        switch self {
        case .paused, .failed: true
        default: false
        }
    }

    package var isDownloaded: Bool {
        if case .downloaded = self { true } else { false }
    }

    /// Neither on disk whole nor queued or running: `get` (and auto-download)
    /// starts it.
    package var isStartable: Bool { !isDownloaded && !isActive }
}

/// How the shell names a download in messages: its number (`3`, `t2`) and title;
/// and, for `downloads` and `--json`, its address from any shell and its podcast.
package struct DownloadLabel: Sendable, Equatable, CustomStringConvertible {
    /// What the person typed it by (`3`, `t2`, `n1`, an image's URL), made safe.
    package let number: String
    /// Made safe as the label is made: whatever shows a label prints it as it is.
    package let title: String
    /// `P:E` for a subscription's episode; nil where the number is the address.
    package var ref: String?
    /// The title of the podcast an episode belongs to, as sent (JSON gives it so;
    /// rendering makes it safe).
    package var podcast: String?
    /// The library episode downloaded, by identity: what a finished download, a
    /// `delete` or a `play` records its state on.
    package var episode: EpisodeRef?

    package init(number: String, title: String, ref: String? = nil, podcast: String? = nil, episode: EpisodeRef? = nil)
    {
        self.number = SafeText.line(number)
        self.title = SafeText.line(title)
        self.ref = ref
        self.podcast = podcast
        self.episode = episode
    }

    /// The download's address: `P:E`, else its number.
    package var address: String { ref ?? number }

    /// The same download, named by its address (`2:3`, not the `3` typed with
    /// podcast 2 loaded): for what is said with no podcast loaded.
    package var byAddress: DownloadLabel {
        DownloadLabel(number: address, title: title, ref: ref, podcast: podcast, episode: episode)
    }

    /// `3 Title`.
    package var description: String { title.isEmpty ? number : "\(number) \(title)" }
}

/// One download a command acts on: an episode or a song's preview.
package struct DownloadTarget: Sendable {
    /// How the shell names it: `3`, `2:3` or `t2`, its title, and the library
    /// episode it is (``DownloadLabel/episode``).
    package let label: DownloadLabel
    package let request: DownloadRequest

    package init(label: DownloadLabel, request: DownloadRequest) {
        self.label = label
        self.request = request
    }
}
