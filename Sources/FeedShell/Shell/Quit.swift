import ShellKit

extension Command {
    static let quit = Command(
        CommandSpec(
            "quit",
            aliases: ["exit"],
            summary: "leave feedsh (Ctrl-D does the same)",
            details: """
                With downloads running, asks first: they are paused, and 'resume' continues
                them in a later session. In a script, feedsh waits for them instead.
                """
        )
    ) { _, context throws(ShellError) in
        guard let ask = context.ask else { return .quit }
        let active = await context.session.downloads.all().filter { $0.state.isActive }.count
        guard active > 0 else { return .quit }
        let running = active == 1 ? "1 download is" : "\(active) downloads are"
        return await ask("\(running) running. Pause and quit? [y/N] ") ? .quit : .proceed
    }
}
