import Downloads
import FeedKit

/// Turns download events into lines for a person, on standard error.
///
/// Progress is printed at most once per 10 % per download (the live status area of
/// the interactive shell is separate); retries, restarts, completions and failures
/// always.
struct DownloadReporter {
    let console: Console
    private var lastDecile: [String: Int] = [:]

    init(console: Console) {
        self.console = console
    }

    mutating func report(_ event: DownloadEvent, label: String) {
        let number = label.prefix { $0 != " " }
        switch event {
        case .queued, .paused, .cancelled:
            break
        case .started(let id, let offset):
            lastDecile[id] = nil
            if offset > 0 { console.printError("[\(number)] continuing from \(ByteCountText.format(Int(offset)))") }
        case .progress(let id, let progress):
            guard let fraction = progress.fraction else { return }
            let decile = Int(fraction * 10)
            guard decile > (lastDecile[id] ?? 0), decile < 10 else { return }
            lastDecile[id] = decile
            console.printError("[\(number)] \(progressText(progress))")
        case .completed, .failed:
            lastDecile[event.id] = nil
            fallthrough
        case .restarted, .retrying:
            if let line = Self.message(for: event, label: label) { console.printError(line) }
        }
    }

    /// The line a person sees for news about a download (restarts, retries, the
    /// end), in scripts and above the interactive prompt alike.
    static func message(for event: DownloadEvent, label: String) -> String? {
        let number = label.prefix { $0 != " " }
        switch event {
        case .completed(_, let bytes, _):
            return "downloaded \(label) (\(ByteCountText.format(Int(bytes))))"
        case .failed(_, let error):
            return "failed \(label): \(TerminalText.line(error.description))"
        case .restarted(_, let reason):
            return "[\(number)] \(reason)"
        case .retrying(_, let attempt, let delay, let reason):
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            return "[\(number)] \(TerminalText.line(reason)); try \(attempt) in \(String(format: "%.1f", seconds)) s"
        default:
            return nil
        }
    }
}
