import Downloads
import ShellKit
import TerminalKit

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
                switch await context.session.board.pause(target.request) {
                case .paused(let bytes, let total, let holder):
                    Outcome(
                        kind: .paused,
                        message:
                            "paused \(number) at \(Formatting.precisePercent(bytes, of: total))\(holder == .background ? " (in the background)" : "")"
                    )
                case .finishedFirst:
                    Outcome(kind: .finishedFirst, message: "\(number) finished before it could be paused")
                case .heldElsewhere(let pid):
                    Self.elsewhere(target, pid: pid)
                case .unreachable:
                    Outcome(kind: .notPaused, message: "\(number): the background feedsh went away")
                case .notRunning:
                    Outcome(kind: .notDownloading, message: "\(number) is not downloading")
                }
            outcomes.append(outcome)
        }
        return outcomes
    }
}
