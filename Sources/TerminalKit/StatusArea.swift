import PlainText

/// How far a transfer has come, as the terminal shows it.
public struct ProgressReading: Sendable, Equatable {
    public var bytes: Int64
    public var total: Int64?
    /// Nil until measured.
    public var bytesPerSecond: Double?
    public var eta: Duration?

    public init(bytes: Int64, total: Int64?, bytesPerSecond: Double?, eta: Duration?) {
        self.bytes = bytes
        self.total = total
        self.bytesPerSecond = bytesPerSecond
        self.eta = eta
    }

    /// `37.5% of 48.1 MB, 3.2 MB/s, ETA 0:09`.
    public var text: String {
        var parts: [String] = []
        if let total {
            parts.append("\(Formatting.precisePercent(bytes, of: total)) of \(ByteCountText.format(Int(total)))")
        } else {
            parts.append(ByteCountText.format(Int(bytes)))
        }
        parts.append(Formatting.rate(bytesPerSecond))
        if let eta { parts.append("ETA \(Formatting.duration(eta))") }
        return parts.joined(separator: ", ")
    }
}

/// The lines drawn above the prompt while transfers run: one per transfer, or one
/// summary line when more run than fit.
public enum StatusArea {
    public struct Entry: Sendable, Equatable {
        /// Short and fixed: `1`, `t2`.
        public var tag: String
        public var title: String
        public var progress: ProgressReading?

        public init(tag: String, title: String, progress: ProgressReading?) {
            self.tag = tag
            self.title = title
            self.progress = progress
        }
    }

    /// Each line is cut to `width`, so that every line takes exactly one row.
    public static func lines(_ entries: [Entry], width: Int, maxLines: Int = 4) -> [String] {
        guard !entries.isEmpty else { return [] }
        if entries.count <= maxLines {
            return entries.map { entry in
                let progress = entry.progress?.text ?? "starting"
                return TextLayout.truncate("[\(entry.tag)] \(progress)  \(entry.title)", toWidth: width)
            }
        }
        let bytes = entries.reduce(Int64(0)) { $0 + ($1.progress?.bytes ?? 0) }
        let totals = entries.compactMap { $0.progress?.total }
        let rates = entries.compactMap { $0.progress?.bytesPerSecond }
        var summary = "\(entries.count) downloads: "
        if totals.count == entries.count {
            // Saturating: a server may claim any length.
            let total = totals.reduce(Int64(0)) { sum, next in
                let (added, overflow) = sum.addingReportingOverflow(next)
                return overflow ? .max : added
            }
            summary += "\(Formatting.precisePercent(bytes, of: total)) of \(ByteCountText.format(Int(total)))"
        } else {
            summary += ByteCountText.format(Int(bytes))
        }
        summary += ", " + Formatting.rate(rates.isEmpty ? nil : rates.reduce(0, +))
        return [TextLayout.truncate(summary, toWidth: width)]
    }
}
