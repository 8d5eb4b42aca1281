import Downloads
import FeedKit
import FeedServices
import PlainText
import Synchronization

/// Turns download events into lines for a person, on standard error, or into JSON
/// event lines on standard output with `--json`.
///
/// Progress is printed at most once per 10 % per download (once per 1 % as JSON; the
/// live status area of the interactive shell is separate); retries, restarts,
/// completions and failures always.
struct DownloadReporter {
    let console: Console
    /// The last tenth (or hundredth, in JSON) reported per download.
    private var lastDecile: [DownloadID: Int] = [:]

    init(console: Console) {
        self.console = console
    }

    mutating func report(_ event: DownloadEvent, label: DownloadLabel) {
        if console.json {
            reportJSON(event, label: label)
            return
        }
        let number = label.number
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
            console.printError("[\(number)] \(progress.reading.text)")
        case .completed, .failed:
            lastDecile[event.id] = nil
            fallthrough
        case .restarted, .retrying:
            if let line = Self.message(for: event, label: label) { console.printError(line) }
        }
    }

    private mutating func reportJSON(_ event: DownloadEvent, label: DownloadLabel) {
        if case .progress(let id, let progress) = event {
            guard let fraction = progress.fraction else { return }
            let percent = Int(fraction * 100)
            guard percent > (lastDecile[id] ?? -1), percent < 100 else { return }
            lastDecile[id] = percent
        } else {
            lastDecile[event.id] = nil
        }
        console.emit(JSONRender.event(event, label: label))
    }

    /// The line a person sees for news about a download (restarts, retries, the
    /// end), in scripts and above the interactive prompt alike.
    static func message(for event: DownloadEvent, label: DownloadLabel) -> String? {
        let number = label.number
        switch event {
        case .completed(_, let bytes, let file):
            return "downloaded \(label) (\(ByteCountText.format(Int(bytes)))) to \(SafeText.line(file.path))"
        case .failed(_, let error):
            return "failed \(label): \(SafeText.line(Advice.described(error)))"
        case .restarted(_, let reason):
            return "[\(number)] \(SafeText.line(reason.description))"
        case .retrying(_, let attempt, let delay, let reason):
            return
                "[\(number)] \(SafeText.line(reason.description)); try \(attempt) in \(String(format: "%.1f", delay.seconds)) s"
        default:
            return nil
        }
    }
}

/// A ``DownloadReporter`` that several tasks may use.
final class SharedReporter: Sendable {
    let console: Console
    private let reporter: Mutex<DownloadReporter>

    init(console: Console) {
        self.console = console
        reporter = Mutex(DownloadReporter(console: console))
    }

    func report(_ event: DownloadEvent, label: DownloadLabel) {
        reporter.withLock { $0.report(event, label: label) }
    }
}
