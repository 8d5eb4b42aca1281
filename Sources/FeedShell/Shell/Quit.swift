import ShellKit
import TerminalKit

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
        guard let answer = context.answer else { return .quit }
        let engine = context.session.downloads
        // Its count follows the downloads while it is asked; when the last one ends
        // there is nothing left to ask.
        let question: @Sendable () async -> String? = {
            let active = await engine.all().filter { $0.state.isActive }.count
            guard active > 0 else { return nil }
            let running = active == 1 ? "1 download is" : "\(active) downloads are"
            return "\(running) running. Continue in the background, pause, or stay? [b/p/S] "
        }
        switch await answer(question) {
        case .moot:
            return .quit
        case .typed("b"), .typed("background"):
            let (count, pid) = try await context.session.detach()
            context.console.printParagraph(Shell.detachedText(count, pid: pid))
            return .quit
        case .typed("p"), .typed("pause"):
            // Paused here, and said: the next shell lists them (downloads) and
            // resumes them by P:E.
            let active = await engine.all().filter { $0.state.isActive }.map(\.request)
            let ids = active.map(\.id)
            for id in ids { _ = await engine.pause(id) }
            await context.session.board.settle(active)
            var refs: [String] = []
            for id in ids {
                let ref = context.session.label(for: id).address
                if case .paused(let bytes, let total) = await engine.state(of: id) {
                    refs.append("\(ref) at \(Formatting.percent(bytes, of: total))")
                } else {
                    refs.append(ref)
                }
            }
            context.console.printParagraph(
                "paused \(Formatting.count(ids.count, "download")) (\(refs.joined(separator: ", "))): "
                    + "'resume P:E' continues one in any feedsh"
            )
            return .quit
        default:
            return .proceed
        }
    }
}
