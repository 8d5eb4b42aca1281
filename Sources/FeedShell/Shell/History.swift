import ShellKit

extension Command {
    static let history = Command(
        CommandSpec(
            "history",
            summary: "list the commands typed at the prompt",
            details: "Saved in $XDG_STATE_HOME/feedsh/history; Ctrl-R searches it."
        )
    ) { _, context throws(ShellError) in
        HistoryListing(entries: context.history?())
    }
}

/// The lines typed at the prompt, oldest first; nil outside the interactive shell,
/// which keeps none.
struct HistoryListing: CommandResult {
    let entries: [String]?
}
