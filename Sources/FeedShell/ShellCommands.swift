extension Command {
    static let help = Command(
        name: "help",
        synopsis: "help [COMMAND]",
        summary: "list the commands, or explain one"
    ) { arguments, context throws(ShellError) in
        let name = try arguments.positional()
        try arguments.finish()
        guard let name else {
            let width = context.registry.commands.map { $0.name.count }.max() ?? 0
            var lines = ["Commands (type 'help COMMAND' for more):"]
            for command in context.registry.commands {
                lines.append("  " + TerminalText.pad(command.name, toWidth: width) + "  " + command.summary)
            }
            context.output(
                lines.joined(separator: "\n"),
                json: .array(
                    context.registry.commands.map {
                        .object([
                            "name": .string($0.name), "synopsis": .string($0.synopsis), "summary": .string($0.summary),
                        ])
                    }
                )
            )
            return .proceed
        }
        guard let command = context.registry.command(named: name) else {
            throw .unknownCommand(TerminalText.line(name), suggestion: context.registry.suggestion(for: name))
        }
        var lines = ["usage: \(command.synopsis)", "", command.summary]
        if !command.details.isEmpty { lines += ["", command.details] }
        if !command.aliases.isEmpty { lines += ["", "aliases: " + command.aliases.joined(separator: ", ")] }
        context.output(
            lines.joined(separator: "\n"),
            json: .object([
                "name": .string(command.name), "synopsis": .string(command.synopsis),
                "summary": .string(command.summary), "details": .string(command.details),
                "aliases": .array(command.aliases.map { .string($0) }),
            ])
        )
        return .proceed
    }

    static let quit = Command(
        name: "quit",
        aliases: ["exit"],
        synopsis: "quit",
        summary: "leave feedsh (Ctrl-D does the same)"
    ) { arguments, _ throws(ShellError) in
        try arguments.finish()
        return .quit
    }
}

extension Command {
    static let history = Command(
        name: "history",
        synopsis: "history",
        summary: "list the commands typed at the prompt",
        details: "Saved in $XDG_STATE_HOME/feedsh/history; Ctrl-R searches it."
    ) { arguments, context throws(ShellError) in
        try arguments.finish()
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

extension Command {
    static let source = Command(
        name: "source",
        synopsis: "source FILE",
        summary: "run the commands in a file",
        details: """
            Runs FILE's commands in this shell, stopping at the first failure, which is
            reported with the file and line. Sourced files may source others, up to 8
            deep; a file that sources itself is refused.
            """
    ) { arguments, context throws(ShellError) in
        guard let path = try arguments.positional() else { throw .usage(synopsis: arguments.synopsis) }
        try arguments.finish()
        return try await context.source(path)
    }
}

extension CommandRegistry {
    /// Every command feedsh has, in the order `help` lists them.
    public static let standard = CommandRegistry([
        .lookup, .search, .open, .episodes, .show, .get, .pause, .resume, .cancel, .downloads, .wait, .posts, .post,
        .image, .artwork, .tracks, .preview, .met, .source, .history, .help, .quit,
    ])
}
