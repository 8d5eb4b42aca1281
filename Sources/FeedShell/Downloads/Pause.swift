import Downloads
import ShellKit

extension Command {
    static let pause = perDownload(
        CommandSpec(
            "pause",
            summary: "pause downloads, keeping what has arrived",
            details: "The .part file stays; 'resume' continues it, now or in a later run."
        ),
        offers: { $0.isActive },
        everyDownloadWhenNoneLoaded: true
    ) { selected, _, context in
        let targets = selected.targets
        var outcomes: [Outcome] = []
        for target in targets {
            let number = target.label.number
            // Paused where it runs: here, or in the background feedsh.
            let outcome: Outcome =
                switch await context.services.downloads.pause(target.request) {
                case .paused(let bytes, let total, let holder):
                    .paused(number, bytes: bytes, total: total, background: holder == .background)
                case .finishedFirst: .finishedFirst(number)
                case .heldElsewhere(let pid): Self.elsewhere(target, pid: pid)
                case .unreachable: .pauseLost(number)
                case .notRunning: .notDownloading(number)
                }
            outcomes.append(outcome)
        }
        return outcomes
    }
}
