import ShellKit

extension Command {
    static let quit = Command(
        CommandSpec(
            "quit",
            aliases: ["exit"],
            summary: "leave feedsh (Ctrl-D does the same)",
            details: """
                With downloads running, asks first: continue them in the background (a
                feedsh without a terminal finishes them, as 'detach' does), pause them
                ('resume' continues them in a later session), or stay. In a script,
                feedsh waits for them instead (or, with --detach, hands them over).
                """
        )
    ) { _, context throws(ShellError) in
        guard let answer = context.answer else { return NoResult(outcome: .quit) }
        let downloads = context.services.downloads
        // Its count follows the downloads while it is asked; when the last one ends
        // there is nothing left to ask.
        let question: @Sendable () async -> String? = {
            let active = await downloads.here().filter { $0.state.isActive }.count
            guard active > 0 else { return nil }
            return Render.quitQuestion(running: active)
        }
        switch await answer(question) {
        case .moot:
            return NoResult(outcome: .quit)
        case .typed("b"), .typed("background"):
            let (count, pid) = try await context.services.downloads.handOver()
            context.report(.handedOver(count: count, pid: pid))
            return NoResult(outcome: .quit)
        case .typed("p"), .typed("pause"):
            // Paused here, and said: the next shell lists them (downloads) and
            // resumes them by P:E.
            let active = await downloads.here().filter { $0.state.isActive }.map(\.request)
            let ids = active.map(\.id)
            for id in ids { await downloads.pauseHere(id) }
            await downloads.settle(active)
            var paused: [PausedDownload] = []
            for id in ids {
                let address = context.session.services.downloads.name(for: id).address
                if case .paused(let bytes, let total) = await downloads.state(of: id) {
                    paused.append(PausedDownload(address: address, bytes: bytes, total: total))
                } else {
                    paused.append(PausedDownload(address: address))
                }
            }
            context.report(.pausedOnQuit(paused))
            return NoResult(outcome: .quit)
        default:
            return NoResult()
        }
    }
}
