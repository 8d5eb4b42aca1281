import Downloads
import ShellKit
import TerminalKit

extension Command {
    /// Pauses a download the background feedsh runs; nil when it runs none such.
    static func pauseInBackground(_ target: DownloadTarget, _ context: CommandContext) async -> Outcome? {
        let session = context.session
        guard let view = await session.board.view(of: target.request), view.holder == .background,
            view.state.isActive,
            let after = await session.backgroundRequest(.pause, [target.request.id])?.first
        else { return nil }
        let number = target.label.number
        return after.state == .paused
            ? Outcome(
                kind: "paused",
                message:
                    "paused \(number) at \(Formatting.precisePercent(after.bytes ?? 0, of: after.total)) (in the background)"
            )
            : Outcome(kind: "finished first", message: "\(number) finished before it could be paused")
    }
}

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
                    await pauseInBackground(target, context)
                        ?? ownedElsewhere(target, context)
                        ?? Outcome(kind: "not downloading", message: "\(number) is not downloading")
                }
            outcomes.append(outcome)
        }
        return outcomes
    }
}
