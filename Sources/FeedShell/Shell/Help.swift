import ShellKit

extension Command {
    static let help = Command(
        CommandSpec(
            "help",
            summary: "list the commands, or explain one",
            arguments: [helped.spec]
        )
    ) { arguments, context throws(ShellError) in
        guard let name = arguments[helped] else { return HelpPage.overview(context.registry.specs) }
        guard let command = context.registry.command(named: name) else {
            throw .unknownCommand(name, suggestion: context.registry.suggestion(for: name))
        }
        return HelpPage.command(command.spec)
    }
}

/// What `help` shows: every command, or one in full.
enum HelpPage: CommandResult {
    case overview([CommandSpec])
    case command(CommandSpec)
}

extension Command {
    private static let helped = CommandArgument<String>("COMMAND", optional: true, completion: .command)
}
