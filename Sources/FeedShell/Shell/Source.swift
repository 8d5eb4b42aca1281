import ShellKit

extension Command {
    static let source = Command(
        CommandSpec(
            "source",
            summary: "run the commands in a file",
            details: """
                Runs FILE's commands in this shell, stopping at the first failure, which is
                reported with the file and line. Sourced files may source others, up to 8
                deep; a file that sources itself is refused.
                """,
            arguments: [sourced.spec]
        ),
        jsonLine: false
    ) { arguments, context throws(ShellError) in
        NoResult(outcome: try await context.source(arguments.required(sourced)))
    }
}

extension Command {
    private static let sourced = CommandArgument<String>.path()
}
