import Testing

@testable import FeedShell

@Suite("Command arguments")
struct ArgumentsTests {
    @Test func optionsInAnyPosition() throws {
        var arguments = Arguments(["--limit", "7", "123"], synopsis: "lookup")
        #expect(try arguments.intOption("limit", in: 1...200) == 7)
        #expect(try arguments.positional() == "123")
        try arguments.finish()

        var equals = Arguments(["123", "--limit=9"], synopsis: "lookup")
        #expect(try equals.intOption("limit", in: 1...200) == 9)
        #expect(try equals.positional() == "123")
        try equals.finish()
    }

    @Test func badValuesAreUsageErrors() {
        var outOfRange = Arguments(["--limit", "0"], synopsis: "lookup [ID] [--limit N]")
        #expect(throws: ShellError.self) { try outOfRange.intOption("limit", in: 1...200) }
        var missing = Arguments(["--limit"], synopsis: "lookup")
        do {
            _ = try missing.intOption("limit", in: 1...200)
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "--limit needs a value; usage: lookup")
        }
    }

    @Test func leftoversAreNamed() {
        var extra = Arguments(["a", "b"], synopsis: "show N (1-5)")
        _ = try? extra.positional()
        #expect(throws: ShellError.self) { try extra.finish() }
        do {
            try extra.finish()
        } catch {
            #expect(error.description == "unexpected argument 'b'; usage: show N (1-5)")
        }
        var unknown = Arguments(["--frobnicate", "x"], synopsis: "lookup")
        do {
            _ = try unknown.positional()
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "unknown option '--frobnicate'; usage: lookup")
        }
    }

    @Test func doubleDashEndsOptions() throws {
        var arguments = Arguments(["--", "--not-an-option"], synopsis: "search TERM")
        #expect(try arguments.positional() == "--not-an-option")
        try arguments.finish()
    }
}

@Suite("Command registry")
struct CommandRegistryTests {
    @Test(arguments: [
        ("epsiodes", "episodes"), ("lokup", "lookup"), ("hlep", "help"), ("shwo", "show"), ("exti", "exit"),
    ])
    func suggestsNearNames(typo: String, expected: String) {
        #expect(CommandRegistry.standard.suggestion(for: typo) == expected)
    }

    @Test func noSuggestionForUnrelatedWords() {
        #expect(CommandRegistry.standard.suggestion(for: "frobnicate") == nil)
    }

    @Test func aliasesResolve() {
        #expect(CommandRegistry.standard.command(named: "exit")?.name == "quit")
    }
}
