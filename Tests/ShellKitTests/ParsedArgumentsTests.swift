import Foundation
import Testing

@testable import ShellKit

/// Specs shaped like feedsh's, so that the tests read like the shell.
enum Specs {
    static let lookup = CommandSpec(
        "lookup",
        summary: "load a podcast",
        arguments: [ArgumentSpec("ID", optional: true)],
        flags: [FlagSpec("limit", value: .integer(1...200))]
    )
    static let search = CommandSpec(
        "search",
        summary: "find podcasts",
        arguments: [ArgumentSpec("TERM", rest: true)],
        flags: [FlagSpec("limit", value: .integer(1...200))]
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
                arguments: [ArgumentSpec("QUERY", rest: true)],
                flags: [
                    FlagSpec("medium", value: .text("M"), completion: .words(["Paintings", "Prints", "Sculpture"])),
                    FlagSpec("has-images"), FlagSpec("order", value: .choice(["new", "old"])),
                ]
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
        #expect(before.integer("limit") == 7 && before["ID"] == "123")
        let after = try ParsedArguments.parse(["123", "--limit=9"], spec: Specs.lookup)
        #expect(after.integer("limit") == 9 && after["ID"] == "123")
        let none = try ParsedArguments.parse([], spec: Specs.lookup)
        #expect(none["ID"] == nil && none.integer("limit") == nil)
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
        #expect(term["TERM"] == "song exploder" && term.integer("limit") == 3)
        #expect(try ParsedArguments.parse(["--", "--not-an-option"], spec: Specs.search)["TERM"] == "--not-an-option")
        #expect(throws: UsageError(synopsis: "search TERM... [--limit N]")) {
            try ParsedArguments.parse([], spec: Specs.search)
        }
    }

    @Test func verbsChooseTheirOwnArgumentsAndFlags() throws {
        let search = try ParsedArguments.parse(
            ["search", "sunflowers", "--medium", "Paintings", "--has-images"],
            spec: Specs.met
        )
        #expect(search.subcommand == "search" && search["QUERY"] == "sunflowers")
        #expect(search.option("medium") == "Paintings" && search.has("has-images"))
        #expect(try ParsedArguments.parse(["search", "x", "--order", "OLD"], spec: Specs.met).option("order") == "old")
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
        let set = CommandSpec(
            "set",
            summary: "settings",
            subcommands: [CommandSpec("speed", summary: "speed", arguments: [ArgumentSpec("RATE")])],
            verbOptional: true
        )
        #expect(try ParsedArguments.parse([], spec: set).subcommand == nil)
        let speed = try ParsedArguments.parse(["speed", "1.5"], spec: set)
        #expect(speed.subcommand == "speed" && speed["RATE"] == "1.5")
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["speed"], spec: set) }
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["volume", "3"], spec: set) }
        #expect(set.synopsis == "set | set speed RATE")
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
