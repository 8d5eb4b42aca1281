import ShellKit
import TerminalKit

extension Command {
    static let resume = perDownload(
        CommandSpec(
            "resume",
            summary: "continue paused or failed downloads",
            details: "Continues from the bytes on disk with a Range request."
        ),
        offers: { $0.isResumable },
        everyDownloadWhenNoneLoaded: true
    ) { selected, _, context in
        await startAll(selected.targets, context) { target in
            let number = target.label.number
            // One the background feedsh holds continues there.
            if let before = await context.session.board.resumeWhereHeld(target.request) {
                var at = ""
                if case .paused(let bytes, let total) = before {
                    at = " at \(Formatting.precisePercent(bytes, of: total))"
                }
                return .skip(Outcome(kind: .resumed, message: "resuming \(number)\(at) in the background"))
            }
            return switch await context.session.status(of: target.request) {
            case .paused(let bytes, let total):
                .start(message: "resuming \(number) at \(Formatting.precisePercent(bytes, of: total))")
            case .failed: .start(message: "retrying \(number)")
            case .queued, .downloading:
                .skip(Outcome(kind: .alreadyDownloading, message: "\(number) is already downloading"))
            case .downloaded: .skip(Outcome(kind: .alreadyDownloaded, message: "\(number) is already downloaded"))
            case .none: .skip(Outcome(kind: .notPaused, message: "\(number) is not paused (use 'get \(number)')"))
            }
        }
    }
}
