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

/// How a download is shown in messages: the number it was typed by (`3`, `t2`,
/// `n1`, an image's URL), its title and its podcast. Display only: which
/// library episode it is rides beside it, in ``DownloadSubject``.
package struct DownloadLabel: Sendable, Equatable, CustomStringConvertible {
    /// What the person typed it by, made safe.
    package let number: String
    /// Made safe as the label is made: whatever shows a label prints it as it is.
    package let title: String
    /// The title of the podcast an episode belongs to, as sent (JSON gives it so;
    /// rendering makes it safe).
    package var podcast: String?

    package init(number: String, title: String, podcast: String? = nil) {
        self.number = SafeText.line(number)
        self.title = SafeText.line(title)
        self.podcast = podcast
    }

    /// `3 Title`.
    package var description: String { title.isEmpty ? number : "\(number) \(title)" }
}

/// Which library episode a download is, by identity: what a finished download,
/// a `delete` or a `play` records its state on, and where it was listed (`P:E`)
/// when it was named (nil when the words that named it did not say).
package struct DownloadSubject: Sendable, Equatable {
    package let episode: EpisodeRef
    package let listed: ListedAddress?

    package init(episode: EpisodeRef, listed: ListedAddress?) {
        self.episode = episode
        self.listed = listed
    }
}

/// A download as the downloads service knows it: how it is shown, and (for a
/// library episode) which episode it is.
package struct DownloadName: Sendable, Equatable {
    package var label: DownloadLabel
    package var subject: DownloadSubject?

    package init(_ label: DownloadLabel, subject: DownloadSubject? = nil) {
        self.label = label
        self.subject = subject
    }

    /// Its address from any shell: `P:E`, else its number.
    package var address: String { subject?.listed?.description ?? label.number }

    /// The same download, shown by its address (`2:3`, not the `3` typed with
    /// podcast 2 loaded): for what is said with no podcast loaded.
    package var byAddress: DownloadName {
        DownloadName(DownloadLabel(number: address, title: label.title, podcast: label.podcast), subject: subject)
    }
}

/// One download a command acts on: an episode or a song's preview.
package struct DownloadTarget: Sendable {
    /// How the shell shows it (`3`, `2:3` or `t2`, its title) and the library
    /// episode it is.
    package let name: DownloadName
    package let request: DownloadRequest

    package init(name: DownloadName, request: DownloadRequest) {
        self.name = name
        self.request = request
    }

    package var label: DownloadLabel { name.label }
    package var subject: DownloadSubject? { name.subject }
}
