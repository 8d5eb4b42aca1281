import FeedKit
import FeedServices
import PlainText
import ShellKit
import TerminalKit

/// A shell command: its spec (names, arguments, flags, help, completion) and what
/// it does. Adding one is a file with its `static let` and a line in
/// ``ShellKit/Registry/standard``.
public struct Command: DeclaredCommand {
    public let spec: CommandSpec
    /// For a command whose selector completes with the loaded podcast's episodes:
    /// which of them Tab offers (`get`: those not downloaded); nil offers all.
    let offers: EpisodeFilter?
    /// Whether `--json` gives the command a line of its own (`source` gives none:
    /// the commands it runs write theirs).
    let jsonLine: Bool
    /// Whether `set sync auto on` syncs after the command succeeds (`update`, `play`).
    let syncsAfter: Bool
    let action: @Sendable (ParsedArguments, CommandContext) async throws(ShellError) -> any CommandResult

    init(
        _ spec: CommandSpec,
        offers: EpisodeFilter? = nil,
        jsonLine: Bool = true,
        syncsAfter: Bool = false,
        action: @escaping @Sendable (ParsedArguments, CommandContext) async throws(ShellError) -> any CommandResult
    ) {
        self.spec = spec
        self.offers = offers
        self.jsonLine = jsonLine
        self.syncsAfter = syncsAfter
        self.action = action
    }
}

/// Which episodes, by their status, a command acts on.
typealias EpisodeFilter = @Sendable (EpisodeStatus) -> Bool

extension Registry where Command == FeedShell.Command {
    /// What each command's selector offers, by its name (the completion domain of
    /// ``Command/selectorArgument(_:optional:)``).
    var episodeOffers: [String: EpisodeFilter] {
        Dictionary(commands.compactMap { command in command.offers.map { (command.spec.name, $0) } }) { first, _ in
            first
        }
    }
}

/// The commands feedsh knows.
public typealias CommandRegistry = Registry<Command>

/// How a question at the prompt was answered.
enum Answer: Sendable, Equatable {
    /// What was typed, trimmed and lowercased.
    case typed(String)
    /// None: Ctrl-C, Ctrl-D, or the shell is stopping.
    case none
    /// The question stopped mattering while it was asked (the downloads it was
    /// about finished).
    case moot
}

/// What a command may touch while it runs.
struct CommandContext: Sendable {
    let session: Session
    let registry: CommandRegistry
    /// The interactive shell's history, oldest first; nil in scripts.
    let history: (@Sendable () -> [String])?
    /// Asks the person at the prompt a yes/no question; nil in scripts, where no one
    /// can answer.
    let ask: (@Sendable (String) async -> Bool)?
    /// Asks the person at the prompt a question whose words may change while it is
    /// asked (`question` is read again when downloads start or end; when it gives
    /// nil the question is moot and withdrawn). Nil in scripts.
    let answer: (@Sendable (_ question: @escaping @Sendable () async -> String?) async -> Answer)?
    /// Shows the downloads' live progress while a command waits on them (`wait`);
    /// nil in scripts.
    let showProgress: (@Sendable (Bool) -> Void)?
    /// Another program (the player) has the screen while on: download news waits
    /// for the next prompt. Nil in scripts.
    let holdOutput: (@Sendable (Bool) -> Void)?

    /// Typed at the prompt, where download news appears above it as it happens.
    var isInteractive: Bool { history != nil }
    /// Runs the commands of a file in this shell (`source`).
    let source: @Sendable (String) async throws(ShellError) -> CommandOutcome
    /// Hands what the command reports while it runs (progress, notes, the
    /// player's events) to the shell's renderer.
    let report: @Sendable (CommandEvent) -> Void
    /// Whether results go out as `--json` lines: a command that would do work only
    /// for the text (counting files on disk) can skip it.
    let json: Bool
    /// Whether the player gets the terminal: at the prompt, or a script typed in
    /// one (its keys work, `q` stops it); a script reading a pipe, or `--json`,
    /// gives it none.
    let playerGetsTerminal: Bool

    /// The feature services the session was given.
    var services: Services { session.services }
}

extension ParsedArguments {
    /// The value of a required argument: the parse already refused a line without
    /// it, so its absence here is a usage error only for a command whose spec does
    /// not declare it.
    func required<Value>(_ argument: CommandArgument<Value>) throws(ShellError) -> Value {
        guard let value = self[argument] else { throw .usage(usage()) }
        return value
    }
}

/// Whether the shell goes on after a command.
typealias CommandOutcome = StatementOutcome
