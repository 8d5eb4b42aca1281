import Downloads
import FeedKit

/// What the shell says about an episode's download, from the engine when it knows
/// the episode and from the download folder otherwise (a `.part` left by an earlier
/// run shows as paused).
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
        case .paused(let bytes, let total): self = .paused(bytes: bytes, total: total)
        case .completed(let bytes): self = .downloaded(bytes: bytes)
        case .failed(let error): self = .failed(error.description)
        case .cancelled, nil:
            switch disk {
            case .absent: self = .none
            case .downloaded(let bytes): self = .downloaded(bytes: bytes)
            case .partial(let bytes, let total): self = .paused(bytes: bytes, total: total)
            }
        }
    }

    /// For the episodes table: `downloaded`, `41% paused`, `41% downloading`,
    /// `queued`, `failed: reason`.
    var text: String {
        switch self {
        case .none: ""
        case .queued: "queued"
        case .downloading(let progress?) where progress.bytes > 0:
            "\(Self.percent(progress.bytes, progress.total)) downloading"
        case .downloading: "downloading"
        case .paused(let bytes, let total) where bytes > 0: "\(Self.percent(bytes, total)) paused"
        case .paused: "paused"
        case .downloaded: "downloaded"
        case .failed(let reason): "failed: \(reason)"
        }
    }

    static func percent(_ bytes: Int64, _ total: Int64?) -> String {
        guard let total, total > 0 else { return ByteCountText.format(Int(bytes)) }
        return String(format: "%.0f%%", Double(bytes) / Double(total) * 100)
    }

    static func precisePercent(_ bytes: Int64, _ total: Int64?) -> String {
        guard let total, total > 0 else { return ByteCountText.format(Int(bytes)) }
        return String(format: "%.1f%%", Double(bytes) / Double(total) * 100)
    }
}

/// Progress as a line: `37.5% of 48.1 MB, 3.2 MB/s, ETA 0:09`.
func progressText(_ progress: DownloadProgress) -> String {
    var parts: [String] = []
    if let total = progress.total {
        parts.append("\(EpisodeStatus.precisePercent(progress.bytes, total)) of \(ByteCountText.format(Int(total)))")
    } else {
        parts.append(ByteCountText.format(Int(progress.bytes)))
    }
    parts.append("\(ByteCountText.format(progress.bytesPerSecond))/s")
    if let eta = progress.eta { parts.append("ETA \(Formatting.duration(eta))") }
    return parts.joined(separator: ", ")
}
