import Downloads
import FeedServices
import TerminalKit

extension EpisodeStatus {
    /// For the episodes table: `downloaded`, `41% paused`, `41% downloading`,
    /// `queued`, `failed: reason`.
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
