import FeedKit
import Foundation

/// Runs feedsh commands from scripts or from a person at a prompt.
public final class Shell: Sendable {
    public let session: Session
    let console: Console
    let registry: CommandRegistry

    public init(configuration: ShellConfiguration, console: Console, registry: CommandRegistry = .standard) {
        self.session = Session(configuration: configuration)
        self.console = console
        self.registry = registry
    }

    /// Runs a script; stops at the first failure unless `keepGoing`.
    ///
    /// Each failure is reported on standard error as `file:line: message` (or
    /// `feedsh: message` for `-c` text). Returns ``ExitStatus/failure`` when any
    /// command failed.
    public func run<Lines: Sequence<ScriptLine>>(script: Lines, keepGoing: Bool) async -> ExitStatus {
        var status = ExitStatus.success
        for line in script {
            let statements: [[String]]
            do {
                statements = try Tokenizer.statements(line.text)
            } catch {
                report(ShellError.syntax(error.description), at: line.location)
                if !keepGoing { return .failure }
                status = .failure
                continue
            }
            for words in statements {
                do {
                    if try await execute(words) == .quit { return status }
                } catch {
                    report(error, at: line.location)
                    if !keepGoing { return .failure }
                    status = .failure
                }
            }
        }
        return status
    }

    /// Runs one command given as words.
    func execute(_ words: [String]) async throws(ShellError) -> CommandOutcome {
        guard let name = words.first else { return .proceed }
        guard let command = registry.command(named: name) else {
            throw .unknownCommand(TerminalText.line(name), suggestion: registry.suggestion(for: name))
        }
        var arguments = Arguments(Array(words.dropFirst()), synopsis: command.synopsis)
        return try await command.action(
            &arguments,
            CommandContext(session: session, console: console, registry: registry)
        )
    }

    /// Runs the statements of one line typed at the prompt; failures are reported
    /// and do not end the shell.
    func runInteractive(line: String) async -> CommandOutcome {
        do {
            for words in try Tokenizer.statements(line) {
                do {
                    if try await execute(words) == .quit { return .quit }
                } catch {
                    report(error, at: nil, prefix: "error")
                    return .proceed
                }
            }
        } catch {
            report(ShellError.syntax(error.description), at: nil, prefix: "error")
        }
        return .proceed
    }

    /// The prompt: `feedsh> `, or the loaded podcast's shortened title.
    public func prompt() async -> String {
        guard let podcast = await session.podcast else { return "feedsh> " }
        return "feedsh:" + TerminalText.truncate(TerminalText.line(podcast.title), toWidth: 24) + "> "
    }

    private func report(_ error: ShellError, at location: String?, prefix: String = "feedsh") {
        console.printError("\(location ?? prefix): \(TerminalText.line(error.description))")
    }

    /// Releases network resources; call once when done.
    public func close() async {
        await session.close()
    }
}
