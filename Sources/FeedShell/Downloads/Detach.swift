import ShellKit

extension Command {
    static let detach = Command(
        CommandSpec(
            "detach",
            summary: "hand the running and queued downloads to a background feedsh",
            details: """
                A feedsh without a terminal (started for this user and library when none
                runs, its log in $XDG_STATE_HOME/feedsh/background.log) finishes them with
                the same --max-concurrent and exits when nothing is left. This shell, and any
                feedsh started later, show them with live progress; pause, resume, cancel and
                wait act on them; the next feedsh started says what finished or failed.
                Scripts can end with --detach instead of waiting.
                """
        )
    ) { _, context throws(ShellError) in
        let (count, pid) = try await context.services.downloads.handOver()
        return HandedOver(handed: count, pid: count > 0 ? pid : nil)
    }
}

/// What `detach` handed to the background feedsh (`pid`, none when nothing ran).
struct HandedOver: CommandResult {
    let handed: Int
    let pid: Int32?
}
