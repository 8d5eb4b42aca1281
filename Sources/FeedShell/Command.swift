import FeedKit
import Synchronization

/// A shell command: its names, its help, and what it does.
public struct Command: Sendable {
    public let name: String
    public let aliases: [String]
    /// The arguments it takes, as in `show N`.
    public let synopsis: String
    /// One line for `help`.
    public let summary: String
    /// More for `help NAME`.
    public let details: String
    /// The `--options` it takes, for completion.
    public let flags: [String]
    let action: @Sendable (inout Arguments, CommandContext) async throws(ShellError) -> CommandOutcome

    init(
        name: String,
        aliases: [String] = [],
        synopsis: String,
        summary: String,
        details: String = "",
        flags: [String] = [],
        action: @escaping @Sendable (inout Arguments, CommandContext) async throws(ShellError) -> CommandOutcome
    ) {
        self.name = name
        self.aliases = aliases
        self.synopsis = synopsis
        self.summary = summary
        self.details = details
        self.flags = flags
        self.action = action
    }
}

/// What a command may touch while it runs.
struct CommandContext: Sendable {
    let session: Session
    let console: Console
    let registry: CommandRegistry
    /// The interactive shell's history, oldest first; nil in scripts.
    let history: (@Sendable () -> [String])?

    /// Typed at the prompt, where download news appears above it as it happens.
    var isInteractive: Bool { history != nil }
    /// Runs the commands of a file in this shell (`source`).
    let source: @Sendable (String) async throws(ShellError) -> CommandOutcome
    /// The command's result for `--json`.
    let result: ResultSlot

    /// Gives the command's result: `text` for a person, or `json` as the `result` of
    /// the command's JSON line. Only the value is built in JSON mode and only the text
    /// otherwise.
    func output(_ text: @autoclosure () -> String, json: @autoclosure () -> JSONValue) {
        if console.json {
            result.set(json())
        } else {
            console.print(text())
        }
    }

    /// A table for a person, rows as JSON objects otherwise.
    func outputTable(
        header: [String],
        rows: @autoclosure () -> [[String]],
        rightAligned: Set<Int>,
        footer: String? = nil,
        json: @autoclosure () -> JSONValue
    ) {
        output(
            console.table(header: header, rows: rows(), rightAligned: rightAligned) + (footer.map { "\n" + $0 } ?? ""),
            json: json()
        )
    }
}

/// Holds the result a command gives, until the shell writes its JSON line.
final class ResultSlot: Sendable {
    private let value = Mutex<JSONValue?>(nil)

    func set(_ newValue: JSONValue) {
        value.withLock { $0 = newValue }
    }

    var current: JSONValue? { value.withLock { $0 } }
}

/// Whether the shell goes on after a command.
enum CommandOutcome: Sendable, Equatable {
    case proceed
    case quit
}

/// The commands by name, with suggestions for typos.
public struct CommandRegistry: Sendable {
    public let commands: [Command]

    init(_ commands: [Command]) {
        self.commands = commands
    }

    public func command(named name: String) -> Command? {
        commands.first { $0.name == name || $0.aliases.contains(name) }
    }

    /// The command `name` abbreviates when only one starts with it, else the closest
    /// name within two edits, for "did you mean".
    public func suggestion(for name: String) -> String? {
        let names = commands.flatMap { [$0.name] + $0.aliases }
        let extensions = names.filter { $0.hasPrefix(name) }
        if !name.isEmpty, extensions.count == 1 { return extensions[0] }
        let scored = names.map { ($0, editDistance($0, name)) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }
}

/// Levenshtein distance with transpositions counted as one edit.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}
