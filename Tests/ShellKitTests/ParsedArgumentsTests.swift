import Foundation
import Testing

@testable import ShellKit

/// Specs shaped like feedsh's, so that the tests read like the shell.
enum Specs {
    static let id = CommandArgument<String>("ID", optional: true)
    static let limit = CommandOption<Int>("limit", range: 1...200)
    static let term = CommandArgument<String>("TERM", rest: true)
    static let query = CommandArgument<String>("QUERY", rest: true)
    static let medium = CommandOption<String>(
        "medium",
        placeholder: "M",
        completion: .words(["Paintings", "Prints", "Sculpture"])
    )
    static let hasImages = CommandFlag("has-images")
    static let order = CommandOption<String>("order", choices: ["new", "old"])
    static let lookup = CommandSpec(
        "lookup",
        summary: "load a podcast",
        arguments: [id.spec],
        flags: [limit.spec]
    )
    static let search = CommandSpec(
        "search",
        summary: "find podcasts",
        arguments: [term.spec],
        flags: [limit.spec]
    )
    static let get = CommandSpec(
        "get",
        summary: "download",
        arguments: [ArgumentSpec("N|N-M", completion: .selector("get"))],
        flags: [FlagSpec("yes")]
    )
    static let met = CommandSpec(
        "met",
        summary: "the Met",
        subcommands: [
            CommandSpec(
                "search",
                summary: "search",
                arguments: [query.spec],
                flags: [medium.spec, hasImages.spec, order.spec]
            ),
            CommandSpec("object", summary: "one object", arguments: [ArgumentSpec("ID")]),
        ]
    )
    static let source = CommandSpec(
        "source",
        summary: "run a file",
        arguments: [ArgumentSpec("FILE", completion: .path)]
    )
    static let open = CommandSpec(
        "open",
        summary: "open",
        arguments: [ArgumentSpec("N", completion: .items("results"))]
    )
    static let help = CommandSpec(
        "help",
        summary: "list the commands, or explain one",
        details: """
            A long paragraph written hard-wrapped in the source, which the terminal's
            width should decide how to wrap instead.
            - a list item
            - another
            """,
        arguments: [ArgumentSpec("COMMAND", optional: true, completion: .command)]
    )
    static let quit = CommandSpec("quit", aliases: ["exit"], summary: "leave")
    static let all = [lookup, search, get, met, source, open, help, quit]
}

@Suite("Parsing by spec")
struct ParsedArgumentsTests {
    @Test func optionsInAnyPosition() throws {
        let before = try ParsedArguments.parse(["--limit", "7", "123"], spec: Specs.lookup)
        #expect(before[Specs.limit] == 7 && before[Specs.id] == "123")
        let after = try ParsedArguments.parse(["123", "--limit=9"], spec: Specs.lookup)
        #expect(after[Specs.limit] == 9 && after[Specs.id] == "123")
        let none = try ParsedArguments.parse([], spec: Specs.lookup)
        #expect(none[Specs.id] == nil && none[Specs.limit] == nil)
    }

    @Test(arguments: [
        (["--limit", "0"], "--limit takes a number from 1 to 200; usage: lookup [ID] [--limit N]"),
        (["--limit"], "--limit needs a value; usage: lookup [ID] [--limit N]"),
        (["--limit", "x"], "--limit takes a number from 1 to 200; usage: lookup [ID] [--limit N]"),
        (["a", "b"], "unexpected argument 'b'; usage: lookup [ID] [--limit N]"),
        (["--frobnicate"], "unknown option '--frobnicate'; usage: lookup [ID] [--limit N]"),
        (["--\u{1B}[31mred"], "unknown option '--red'; usage: lookup [ID] [--limit N]"),
    ])
    func badWordsAreUsageErrors(words: [String], message: String) {
        do {
            _ = try ParsedArguments.parse(words, spec: Specs.lookup)
            Issue.record("expected a usage error")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func restTakesTheWordsLeftAndDoubleDashEndsOptions() throws {
        let term = try ParsedArguments.parse(["song", "exploder", "--limit", "3"], spec: Specs.search)
        #expect(term[Specs.term] == "song exploder" && term[Specs.limit] == 3)
        #expect(
            try ParsedArguments.parse(["--", "--not-an-option"], spec: Specs.search)[Specs.term] == "--not-an-option"
        )
        #expect(throws: UsageError(synopsis: "search TERM... [--limit N]")) {
            try ParsedArguments.parse([], spec: Specs.search)
        }
    }

    @Test func verbsChooseTheirOwnArgumentsAndFlags() throws {
        let search = try ParsedArguments.parse(
            ["search", "sunflowers", "--medium", "Paintings", "--has-images"],
            spec: Specs.met
        )
        #expect(search.subcommand == "search" && search[Specs.query] == "sunflowers")
        #expect(search[Specs.medium] == "Paintings" && search[Specs.hasImages])
        #expect(try ParsedArguments.parse(["search", "x", "--order", "OLD"], spec: Specs.met)[Specs.order] == "old")
        #expect(throws: UsageError.self) {
            try ParsedArguments.parse(["object", "1", "--has-images"], spec: Specs.met)
        }
        #expect(throws: UsageError.self) {
            try ParsedArguments.parse(["search", "x", "--order", "sideways"], spec: Specs.met)
        }
        do {
            _ = try ParsedArguments.parse(["statue"], spec: Specs.met)
            Issue.record("expected a usage error")
        } catch {
            #expect(error.description.hasPrefix("unknown 'met statue'; usage: met search QUERY..."))
        }
    }

    @Test func anOptionalVerbMayBeLeftOut() throws {
        let rate = CommandArgument<String>("RATE")
        let set = CommandSpec(
            "set",
            summary: "settings",
            subcommands: [CommandSpec("speed", summary: "speed", arguments: [rate.spec])],
            verbOptional: true
        )
        #expect(try ParsedArguments.parse([], spec: set).subcommand == nil)
        let speed = try ParsedArguments.parse(["speed", "1.5"], spec: set)
        #expect(speed.subcommand == "speed" && speed[rate] == "1.5")
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["speed"], spec: set) }
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["volume", "3"], spec: set) }
        #expect(set.synopsis == "set | set speed RATE")
    }

    /// `export FILE` and `export history FILE`: a first word that is no verb is
    /// the command's own argument; Tab offers the verbs and the command's own words.
    @Test func anOptionalVerbBesideArgumentsOfItsOwn() throws {
        let file = CommandArgument<String>("FILE", optional: true, completion: .words(["feeds.opml"]))
        let export = CommandSpec(
            "export",
            summary: "export",
            arguments: [file.spec],
            subcommands: [CommandSpec("history", summary: "history", arguments: [file.spec])],
            verbOptional: true
        )
        let plain = try ParsedArguments.parse(["feeds.opml"], spec: export)
        #expect(plain.subcommand == nil && plain[file] == "feeds.opml")
        let history = try ParsedArguments.parse(["history", "plays.csv"], spec: export)
        #expect(history.subcommand == "history" && history[file] == "plays.csv")
        #expect(try ParsedArguments.parse([], spec: export).subcommand == nil)
        #expect(export.synopsis == "export [FILE] | export history [FILE]")
        let completer = Completer(specs: [export])
        #expect(completer.complete("export ") { _ in [] }.candidates.map(\.word) == ["history", "feeds.opml"])
        #expect(completer.complete("export history ") { _ in [] }.candidates.map(\.word) == ["feeds.opml"])
    }

    enum Mark: String, ArgumentChoice {
        case played, unplayed
    }

    @Test func typedArgumentsReadBackAsTheirTypes() throws {
        let mark = CommandArgument<Mark>("played|unplayed")
        let episodes = CommandArgument<Selector>("SELECTOR", forms: .several, noun: "episode", completion: .none)
        let at = CommandOption<Double>("at", placeholder: "TIME", parse: { Double($0) }) {
            "--at takes seconds, not '\($0)'"
        }
        let spec = CommandSpec("mark", summary: "mark", arguments: [mark.spec, episodes.spec], flags: [at.spec])
        let parsed = try ParsedArguments.parse(["PLAYED", "2-3", "--at", "1.5"], spec: spec)
        #expect(parsed[mark] == .played)
        #expect(parsed[episodes]?.items == .ranges([2...3]))
        #expect(parsed[at] == 1.5)
        // Tab offers the enum's cases, and a word that is none of them is named.
        #expect(mark.spec.completion == .words(["played", "unplayed"]))
        #expect(throws: UsageError("mark takes played or unplayed, not 'heard'", synopsis: spec.synopsis)) {
            try ParsedArguments.parse(["heard", "1"], spec: spec)
        }
        // A checked option is refused as the line is parsed, the word sanitized.
        #expect(throws: UsageError("--at takes seconds, not 'soonred'", synopsis: spec.synopsis)) {
            try ParsedArguments.parse(["played", "1", "--at", "soon\u{1B}[31mred"], spec: spec)
        }
    }

    @Test func synopsesComeFromTheSpec() {
        #expect(Specs.lookup.synopsis == "lookup [ID] [--limit N]")
        #expect(Specs.get.synopsis == "get N|N-M [--yes]")
        #expect(
            Specs.met.synopsis == "met search QUERY... [--medium M] [--has-images] [--order new|old] | met object ID"
        )
    }
}

@Suite("Command registry")
struct RegistryTests {
    struct Named: DeclaredCommand {
        let spec: CommandSpec
    }

    let registry = Registry(Specs.all.map(Named.init))

    @Test(arguments: [("lokup", "lookup"), ("hlep", "help"), ("exti", "exit"), ("sea", "search")])
    func suggestsNearNames(typo: String, expected: String) {
        #expect(registry.suggestion(for: typo) == expected)
    }

    @Test func aliasesResolveAndUnrelatedWordsGetNoSuggestion() {
        #expect(registry.command(named: "exit")?.spec.name == "quit")
        #expect(registry.suggestion(for: "frobnicate") == nil)
    }
}

@Suite("Help text")
struct HelpTextTests {
    @Test func detailsAreReflowedToTheWidthAtWordBoundaries() {
        let text = HelpText.command(Specs.help, width: 40)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "usage: help [COMMAND]")
        #expect(lines.allSatisfy { $0.count <= 40 })
        #expect(text.contains("A long paragraph written hard-wrapped in\nthe source, which the terminal's width\n"))
        #expect(text.contains("\n- a list item\n- another"))
    }

    @Test func theManPageListsEveryCommand() {
        let page = HelpText.manPage(Specs.all)
        for spec in Specs.all {
            #expect(page.contains(".B " + spec.synopsis.replacingOccurrences(of: "-", with: "\\-")))
        }
        #expect(page.contains("Aliases: exit."))
        #expect(page.contains(".TP\n.B quit\nLeave."))
    }
}
