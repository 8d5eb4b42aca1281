import ShellKit

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
            if let before = await context.services.downloads.resumeWhereHeld(target.request) {
                return switch before {
                case .paused(let bytes, let total): .skip(.resumingInBackground(number, bytes: bytes, total: total))
                default: .skip(.resumingInBackground(number, bytes: nil, total: nil))
                }
            }
            return switch await context.services.downloads.status(of: target.request) {
            case .paused(let bytes, let total): .start(as: .resuming(number, bytes: bytes, total: total))
            case .failed: .start(as: .retrying(number))
            case .queued, .downloading: .skip(.alreadyDownloading(number))
            case .downloaded: .skip(.alreadyDownloaded(number))
            case .none: .skip(.notPaused(number))
            }
        }
    }
}
