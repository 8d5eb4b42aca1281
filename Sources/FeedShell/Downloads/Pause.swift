import ShellKit
import TerminalKit

extension Command {
    static let pause = perDownload(
        CommandSpec(
            "pause",
            summary: "pause downloads, keeping what has arrived",
            details: "The .part file stays; 'resume' continues it, now or in a later run."
        )
    ) { targets, _, context in
        var outcomes: [Outcome] = []
        for target in targets {
            let number = target.label.number
            let outcome: Outcome =
                switch await context.session.downloads.pause(target.request.id) {
                case .paused(let bytes, let total)?:
                    Outcome(
                        kind: "paused",
                        message: "paused \(number) at \(Formatting.precisePercent(bytes, of: total))"
                    )
                case .completed?:
                    Outcome(kind: "finished first", message: "\(number) finished before it could be paused")
                default:
                    ownedElsewhere(target, context)
                        ?? Outcome(kind: "not downloading", message: "\(number) is not downloading")
                }
            outcomes.append(outcome)
        }
        return outcomes
    }
}
