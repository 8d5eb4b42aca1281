import PlainText

/// A command's words, parsed by its ``CommandSpec``: positionals by name, options
/// checked against their value kinds.
public struct ParsedArguments: Sendable, Equatable {
    /// The verb, for a command with verbs.
    public var subcommand: String?
    private var positionals: [String: String] = [:]
    private var restWords: [String: [String]] = [:]
    private var selectors: [String: Selector] = [:]
    private var options: [String: String] = [:]
    private var present: Set<String> = []
    /// The synopsis the words were parsed with, for usage errors raised later.
    public var synopsis: String

    // Read through the typed keys (``CommandArgument``, ``CommandOption``, ``CommandFlag``) that declared
    // them, never by name from a command.

    /// The positional argument named `name`, if given (a `rest` one joined by spaces).
    func positional(_ name: String) -> String? { positionals[name] }

    /// The words of a `rest` argument as they were given.
    func restWords(_ name: String) -> [String] { restWords[name] ?? [] }

    /// The positional argument named `name`, declared a selector, as parsed.
    func parsedSelector(_ name: String) -> Selector? { selectors[name] }

    /// The value of `--name`, if given.
    func option(_ name: String) -> String? { options[name] }

    /// Whether `--name` was given.
    func isPresent(_ name: String) -> Bool { present.contains(name) }

    /// A usage error with this command's synopsis.
    public func usage(_ problem: String? = nil) -> UsageError {
        UsageError(problem, synopsis: synopsis)
    }

    init(synopsis: String) {
        self.synopsis = synopsis
    }

    /// Parses `words` (without the command's name).
    ///
    /// Options are `--name VALUE` or `--name=VALUE` anywhere; `--` ends them. Words
    /// are sanitized in messages.
    public static func parse(_ words: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var words = words[...]
        var spec = spec
        var subcommand: String?
        if !spec.subcommands.isEmpty, spec.verbOptional, words.isEmpty {
            return ParsedArguments(synopsis: spec.synopsis)
        }
        // A command with verbs that takes words of its own without one (`export
        // FILE`, `export history FILE`): a first word that is no verb is its own.
        let ownWords = spec.verbOptional && !(spec.arguments.isEmpty && spec.flags.isEmpty)
        if !spec.subcommands.isEmpty, !ownWords || words.first.flatMap({ spec.subcommand($0) }) != nil {
            let verbs = spec.subcommands.map(\.name).joined(separator: "|")
            guard let verb = words.first, !verb.hasPrefix("-") else {
                throw UsageError("say which: \(verbs)", synopsis: spec.synopsis)
            }
            guard var chosen = spec.subcommand(verb) else {
                throw UsageError("unknown '\(spec.name) \(SafeText.line(verb))'", synopsis: spec.synopsis)
            }
            subcommand = verb
            words = words.dropFirst()
            chosen.name = spec.name + " " + chosen.name
            spec = chosen
        }
        var parsed = ParsedArguments(synopsis: spec.synopsis)
        parsed.subcommand = subcommand
        var loose: [String] = []
        var optionsEnded = false
        while let word = words.popFirst() {
            guard !optionsEnded, word.hasPrefix("--") else {
                loose.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let body = word.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            guard let flag = spec.flags.first(where: { $0.name == name }) else {
                throw parsed.usage("unknown option '\(SafeText.line(String(word)))'")
            }
            guard let kind = flag.value else {
                guard !body.contains("=") else { throw parsed.usage("--\(name) takes no value") }
                parsed.present.insert(name)
                continue
            }
            var value: String
            if let equals = body.firstIndex(of: "=") {
                value = String(body[body.index(after: equals)...])
            } else {
                guard let next = words.popFirst() else { throw parsed.usage("--\(name) needs a value") }
                value = next
            }
            switch kind {
            case .integer(let range):
                guard let number = Int(value), range.contains(number) else {
                    throw parsed.usage("--\(name) takes a number from \(range.lowerBound) to \(range.upperBound)")
                }
            case .choice(let choices):
                guard let match = choices.first(where: { $0.lowercased() == value.lowercased() }) else {
                    throw parsed.usage("--\(name) takes one of " + choices.joined(separator: ", "))
                }
                value = match
            case .text:
                if let problem = flag.check?(value) { throw parsed.usage(problem) }
            }
            parsed.present.insert(name)
            parsed.options[name] = value
        }
        var index = 0
        for argument in spec.arguments {
            if argument.rest {
                if index < loose.count {
                    parsed.positionals[argument.name] = loose[index...].joined(separator: " ")
                    parsed.restWords[argument.name] = Array(loose[index...])
                    index = loose.count
                }
            } else if index < loose.count {
                parsed.positionals[argument.name] = loose[index]
                index += 1
            }
            guard let word = parsed.positionals[argument.name] else {
                if !argument.optional { throw parsed.usage() }
                continue
            }
            switch argument.kind {
            case .word:
                break
            case .selector(let forms, _) where forms.contains(.playlist) && word.lowercased() == "playlist":
                // The one selector of two words: `playlist NAME`.
                guard index < loose.count else {
                    throw parsed.usage("playlist needs its NAME ('playlists' lists them)")
                }
                parsed.selectors[argument.name] = .playlist(loose[index])
                parsed.positionals[argument.name] = "playlist " + loose[index]
                index += 1
            case .selector(let forms, let noun):
                switch Selector.parse(word, forms: forms, noun: noun) {
                case .success(let selector):
                    parsed.selectors[argument.name] = selector
                case .failure(.formNotTaken(let word)):
                    throw parsed.usage(
                        "\(spec.name) takes \(Self.describe(forms, noun: noun)), not '\(SafeText.line(word))'"
                    )
                case .failure(let problem):
                    throw parsed.usage(problem.description(noun: noun, count: nil))
                }
            case .choice(let choices):
                guard let match = choices.first(where: { $0.lowercased() == word.lowercased() }) else {
                    throw parsed.usage(
                        "\(spec.name) takes \(Self.list(choices)), not '\(SafeText.line(word))'"
                    )
                }
                parsed.positionals[argument.name] = match
            }
        }
        if index < loose.count {
            throw parsed.usage("unexpected argument '\(SafeText.line(loose[index]))'")
        }
        return parsed
    }

    /// `one episode or song`, `episodes`: what a selector of `forms` names.
    private static func describe(_ forms: Selector.Forms, noun: String) -> String {
        let songs = forms.contains(.songs)
        return forms.contains(.several)
            ? "\(noun)s" + (songs ? " or songs" : "") : "one \(noun)" + (songs ? " or song" : "")
    }

    /// `played, unplayed or old`.
    private static func list(_ words: [String]) -> String {
        words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + words.last! : words.joined()
    }
}
