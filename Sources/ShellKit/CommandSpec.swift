/// What a command takes, declared once: parsing, usage text, `help`, the man page's
/// command list and Tab completion all derive from it.
public struct CommandSpec: Sendable {
    public var name: String
    public var aliases: [String]
    /// One line for `help`.
    public var summary: String
    /// More for `help NAME`, wrapped to the terminal when shown.
    public var details: String
    public var arguments: [ArgumentSpec]
    public var flags: [FlagSpec]
    /// Verbs such as `met search` and `met object`: the first word picks one, and its
    /// own arguments and flags apply.
    public var subcommands: [CommandSpec]
    /// The command runs without a verb too (`set` lists, `set speed 2` changes).
    public var verbOptional: Bool
    /// The command usually waits on the network: a terminal shows a spinner when it
    /// takes a moment.
    public var waitsOnNetwork: Bool

    public init(
        _ name: String,
        aliases: [String] = [],
        summary: String,
        details: String = "",
        arguments: [ArgumentSpec] = [],
        flags: [FlagSpec] = [],
        subcommands: [CommandSpec] = [],
        verbOptional: Bool = false,
        waitsOnNetwork: Bool = false
    ) {
        self.name = name
        self.aliases = aliases
        self.summary = summary
        self.details = details
        self.arguments = arguments
        self.flags = flags
        self.subcommands = subcommands
        self.verbOptional = verbOptional
        self.waitsOnNetwork = waitsOnNetwork
    }

    /// `lookup [ID|APPLE-PODCASTS-URL] [--limit N]`; for a command with verbs, one
    /// synopsis per verb joined by ` | `.
    public var synopsis: String {
        guard subcommands.isEmpty else {
            var own = self
            own.subcommands = []
            return ((verbOptional ? [own.synopsis] : []) + subcommands.map { name + " " + $0.synopsis })
                .joined(separator: " | ")
        }
        var parts = [name]
        for argument in arguments {
            let word = argument.rest ? argument.name + "..." : argument.name
            parts.append(argument.optional ? "[\(word)]" : word)
        }
        for flag in flags {
            parts.append("[" + flag.usage + "]")
        }
        return parts.joined(separator: " ")
    }

    /// Every name it answers to.
    public var names: [String] { [name] + aliases }

    /// The verb named `word`, for a command with verbs.
    public func subcommand(_ word: String) -> CommandSpec? {
        subcommands.first { $0.name == word }
    }
}

/// A positional argument.
public struct ArgumentSpec: Sendable {
    /// As the synopsis shows it: `N`, `ID|APPLE-PODCASTS-URL`.
    public var name: String
    public var optional: Bool
    /// Takes every word left, joined by spaces (`search song exploder`).
    public var rest: Bool
    /// What the word must be; checked (and made typed) when the line is parsed.
    public var kind: ArgumentKind
    public var completion: CompletionKind

    public init(
        _ name: String,
        optional: Bool = false,
        rest: Bool = false,
        kind: ArgumentKind = .word,
        completion: CompletionKind = .none
    ) {
        self.name = name
        self.optional = optional
        self.rest = rest
        self.kind = kind
        self.completion = completion
        if case .choice(let words) = kind, completion == .none { self.completion = .words(words) }
    }
}

/// What a positional argument must be.
public enum ArgumentKind: Sendable, Equatable {
    /// Any word.
    case word
    /// A ``Selector`` of these forms, numbering `noun`s (`episode`).
    case selector(Selector.Forms, noun: String)
    /// One of these words (case does not matter).
    case choice([String])
}

/// An option: `--limit N`, `--medium=M` or a bare `--has-images`.
public struct FlagSpec: Sendable {
    /// Without the dashes.
    public var name: String
    /// Nil for a flag that takes no value.
    public var value: ValueKind?
    /// What Tab offers for its value.
    public var completion: CompletionKind
    /// Checks a `.text` value when the line is parsed: what is wrong with it (for
    /// a person, sanitized), or nil when it is good.
    public var check: (@Sendable (String) -> String?)?

    public init(
        _ name: String,
        value: ValueKind? = nil,
        completion: CompletionKind = .none,
        check: (@Sendable (String) -> String?)? = nil
    ) {
        self.name = name
        self.value = value
        self.completion = completion
        self.check = check
        if case .choice(let words)? = value, completion == .none { self.completion = .words(words) }
    }

    /// `--limit N`, `--has-images`.
    public var usage: String {
        switch value {
        case nil: "--\(name)"
        case .integer?: "--\(name) N"
        case .choice(let words)?: "--\(name) " + words.joined(separator: "|")
        case .text(let placeholder)?: "--\(name) \(placeholder)"
        }
    }
}

/// What an option's value must be.
public enum ValueKind: Sendable, Equatable {
    /// A whole number in the range.
    case integer(ClosedRange<Int>)
    /// One of these words (case does not matter).
    case choice([String])
    /// Any text; the placeholder names it in the synopsis.
    case text(String)
}

/// What Tab offers for a word.
public enum CompletionKind: Sendable, Equatable {
    case none
    /// Fixed words.
    case words([String])
    /// Files and folders.
    case path
    /// Command names.
    case command
    /// Items the application lists for this domain, numbered (`open`: search
    /// results).
    case items(String)
    /// Items of a domain, in a selector that may list and range them: `1,3`, `2-4`.
    case selector(String)
}

/// A command line that does not fit its command's spec.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, when more than "usage" can be said.
    public var problem: String?
    public var synopsis: String

    public init(_ problem: String? = nil, synopsis: String) {
        self.problem = problem
        self.synopsis = synopsis
    }

    public var description: String {
        problem.map { "\($0); usage: \(synopsis)" } ?? "usage: \(synopsis)"
    }
}
