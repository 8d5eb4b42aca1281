import Downloads
import FeedKit

/// The lines drawn above the prompt while downloads run: one per download, or one
/// summary line when more run than fit.
enum StatusArea {
    struct Entry: Equatable {
        let label: String
        let progress: DownloadProgress?
    }

    static func lines(_ entries: [Entry], width: Int, maxLines: Int = 4) -> [String] {
        guard !entries.isEmpty else { return [] }
        if entries.count <= maxLines {
            return entries.map { entry in
                let number = entry.label.prefix { $0 != " " }
                let title = entry.label.drop { $0 != " " }.dropFirst()
                let progress = entry.progress.map(progressText) ?? "starting"
                return TerminalText.truncate("[\(number)] \(progress)  \(title)", toWidth: width)
            }
        }
        let bytes = entries.reduce(Int64(0)) { $0 + ($1.progress?.bytes ?? 0) }
        let totals = entries.compactMap { $0.progress?.total }
        let rate = entries.reduce(0.0) { $0 + ($1.progress?.bytesPerSecond ?? 0) }
        var summary = "\(entries.count) downloads: "
        if totals.count == entries.count {
            // Saturating: a server may claim any length.
            let total = totals.reduce(Int64(0)) { sum, next in
                let (added, overflow) = sum.addingReportingOverflow(next)
                return overflow ? .max : added
            }
            summary += "\(EpisodeStatus.precisePercent(bytes, total)) of \(ByteCountText.format(Int(total)))"
        } else {
            summary += ByteCountText.format(Int(bytes))
        }
        summary += ", \(ByteCountText.format(rate))/s"
        return [TerminalText.truncate(summary, toWidth: width)]
    }
}
