import Downloads
import FeedServices
import PlainText
import Playback
import Synchronization
import TerminalKit

/// What a command reports while it runs, before its result: progress, notes and
/// the player's events. Commands hand them to ``CommandContext/report``; the
/// shell's ``EventRenderer`` decides what a person or a program sees of each.
enum CommandEvent: Sendable {
    /// `update` read `done` of `total` feeds, `failed` of them failed.
    case updating(done: Int, total: Int, failed: Int)
    /// A foreground download's event (`image`): its percentage as it goes.
    case download(DownloadLabel, DownloadEvent)
    /// The progress line is done with, before the result.
    case progressEnded
    /// What a feed warned of as it was read (`lookup`, `open`).
    case feedWarnings([String])
    /// `wait` waits for downloads another feedsh runs, named by these numbers.
    case waitingElsewhere([String])
    /// `wait` found nothing running (of the selected downloads when `selected`).
    case nothingToWait(selected: Bool)
    /// Ctrl-C stopped a `wait` at the prompt; the downloads go on.
    case stoppedWaiting
    /// The player starts with `plan`.
    case playing(PlaybackPlan)
    /// What the player reported while `plan` played.
    case playback(PlaybackEvent, PlaybackPlan)
    /// How `plan`'s playback ended.
    case playbackEnded(PlaybackEnd, PlaybackPlan)
    /// The position could not be kept.
    case positionNotSaved(String)
    /// One episode of `play queue` ended.
    case playedInQueue(Played)
    /// Cleanup deleted these files.
    case deleted([CleanupDeletion])
    /// `copy` did this to one file (or, in a dry run, would have).
    case copiedToDevice(DeviceCopyItem, dryRun: Bool)
    /// Leaving the shell handed `count` downloads to the background feedsh `pid`.
    case handedOver(count: Int, pid: Int32)
    /// Leaving the shell paused these downloads.
    case pausedOnQuit([PausedDownload])
    /// The command asks for something at the terminal: a spinner stops first.
    case asking
}

/// A download paused as the shell quit, by its address (`1:2`), with what it had.
struct PausedDownload: Sendable {
    let address: String
    var bytes: Int64?
    var total: Int64?
}

/// Shows a command's events: on standard error for a person (progress redrawn in
/// place on a terminal), or as JSON event lines with `--json`. One per command,
/// for the progress it draws.
final class EventRenderer: Sendable {
    private let console: Console
    /// The last tenth printed of a download without a terminal, and whether a
    /// progress line is drawn.
    private let progress = Mutex<(decile: Int, drawn: Bool)>((0, false))
    /// Writes download progress as JSON events, at most one per whole percent.
    private let reporter: Mutex<DownloadReporter>

    init(console: Console) {
        self.console = console
        reporter = Mutex(DownloadReporter(console: console))
    }

    func report(_ event: CommandEvent) {
        switch event {
        case .updating(let done, let total, let failed):
            if console.progressLine("updating \(done)/\(total)" + (failed > 0 ? " · \(failed) failed" : "")) {
                progress.withLock { $0.drawn = true }
            }
        case .download(let label, let event):
            download(event, label: label)
        case .progressEnded:
            if progress.withLock({ $0.drawn }) { console.endProgressLine() }
        case .feedWarnings(let warnings):
            guard !console.json else { return }
            for warning in warnings { console.printError(SafeLine("warning: \(warning)").description) }
        case .waitingElsewhere(let numbers):
            console.printError("waiting for \(numbers.joined(separator: ", ")), being downloaded by another feedsh")
        case .nothingToWait(let selected):
            guard !console.json else { return }
            console.printError(
                selected ? "nothing to wait for: not downloading" : "nothing to wait for: no download is running"
            )
        case .stoppedWaiting:
            console.printError("stopped waiting; the downloads go on")
        case .playing(let plan):
            if !console.json { console.printError(Render.playing(plan)) }
        case .playback(let event, let plan):
            PlaybackEvents(console: console, label: plan.label, chapters: plan.chapters).report(event)
        case .playbackEnded(let end, let plan):
            PlaybackEvents(console: console, label: plan.label, chapters: plan.chapters).reportEnd(end)
        case .positionNotSaved(let reason):
            console.printError("warning: \(reason)")
        case .playedInQueue(let played):
            if !console.json, let text = played.text(on: Page(width: nil, color: false)) { console.printError(text) }
        case .deleted(let deletions):
            if console.json { for deletion in deletions { console.emit(deletion.json) } }
        case .copiedToDevice(let item, let dryRun):
            guard !console.json else { return }
            console.printParagraph(Render.copiedToDevice(item, dryRun: dryRun))
        case .handedOver(let count, let pid):
            console.printParagraph(Render.handedOver(count, pid: pid))
        case .pausedOnQuit(let paused):
            let refs = paused.map { download in
                download.bytes.map { "\(download.address) at \(Formatting.percent($0, of: download.total))" }
                    ?? download.address
            }
            console.printParagraph(
                "paused \(Formatting.count(refs.count, "download")) (\(refs.joined(separator: ", "))): "
                    + "'resume P:E' continues one in any feedsh"
            )
        case .asking:
            console.activity.stop()
        }
    }

    /// A foreground download's percentage: one line redrawn in place on a terminal
    /// (`45.0% of 1.2 MB`), a line every 10 % otherwise, and with `--json` progress
    /// events as background downloads report them.
    private func download(_ event: DownloadEvent, label: DownloadLabel) {
        if console.json {
            if case .progress = event { reporter.withLock { $0.report(event, label: label) } }
            return
        }
        guard case .progress(_, let got) = event, let total = got.total, total > 0 else { return }
        let text = "\(Formatting.precisePercent(got.bytes, of: total)) of \(ByteCountText.format(Int(total)))"
        if console.progressLine(text) {
            progress.withLock { $0.drawn = true }
            return
        }
        let decile = Int(Double(got.bytes) / Double(total) * 10)
        let due = progress.withLock { state in
            guard decile > state.decile else { return false }
            state.decile = decile
            return true
        }
        if due { console.printError(text) }
    }
}
