import ShellKit

extension Command {
    static let history = Command(
        CommandSpec(
            "history",
            summary: "list the commands typed at the prompt",
            details: "Saved in $XDG_STATE_HOME/feedsh/history; Ctrl-R searches it."
        )
    ) { _, context throws(ShellError) in
        guard let entries = context.history?() else {
            context.output("history is kept by the interactive shell only", json: .array([]))
            return .proceed
        }
        let width = String(entries.count).count
        let lines = entries.enumerated().map { index, entry in
            String(repeating: " ", count: width - String(index + 1).count) + "\(index + 1)  \(entry)"
        }
        context.output(
            lines.isEmpty ? "no history yet" : lines.joined(separator: "\n"),
            json: .array(entries.map { .string($0) })
        )
        return .proceed
    }
}
