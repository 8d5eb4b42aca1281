import ShellKit

extension Command {
    static let help = Command(
        CommandSpec(
            "help",
            summary: "list the commands, or explain one",
            arguments: [helped.spec]
        )
    ) { arguments, context throws(ShellError) in
        let width = context.console.width
        guard let name = arguments[helped] else {
            context.output(
                HelpText.overview(context.registry.specs, width: width),
                json: .array(
                    context.registry.specs.map {
                        .object([
                            "name": .string($0.name), "synopsis": .string($0.synopsis), "summary": .string($0.summary),
                        ])
                    }
                )
            )
            return .proceed
        }
        guard let command = context.registry.command(named: name) else {
            throw .unknownCommand(name, suggestion: context.registry.suggestion(for: name))
        }
        let spec = command.spec
        context.output(
            HelpText.command(spec, width: width),
            json: .object([
                "name": .string(spec.name), "synopsis": .string(spec.synopsis),
                "summary": .string(spec.summary), "details": .string(spec.details),
                "aliases": .array(spec.aliases.map { .string($0) }),
            ])
        )
        return .proceed
    }
}

extension Command {
    private static let helped = CommandArgument<String>("COMMAND", optional: true, completion: .command)
}
