import Foundation
import Testing

/// The repository's `completions/` folder.
private let completionsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("completions")

/// Where a shell is installed, if it is.
private func shellPath(_ name: String) -> String? {
    ["/usr/bin/\(name)", "/bin/\(name)", "/usr/local/bin/\(name)"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}

/// A shell test runs where the shell is installed, and always in CI (which installs
/// zsh and fish), so that a missing shell fails there instead of skipping.
private func shellAvailable(_ name: String) -> Bool {
    shellPath(name) != nil || ProcessInfo.processInfo.environment["CI"] != nil
}

@Suite("Shell completion scripts")
struct CompletionScriptTests {
    @Test(arguments: [("bash", "feedsh.bash"), ("zsh", "_feedsh"), ("fish", "feedsh.fish")])
    func committedScriptMatchesTheBinary(shell: String, file: String) async throws {
        let generated = try await runFeedsh(["--generate-completion-script", shell])
        #expect(generated.status == 0)
        let committed = try String(contentsOf: completionsDirectory.appendingPathComponent(file), encoding: .utf8)
        #expect(
            committed == generated.standardOutput,
            "completions/\(file) is stale: run 'make completions'"
        )
    }

    @Test func bashCompletesAFlagAndItsValues() async throws {
        let bash = try #require(shellPath("bash"))
        let script = completionsDirectory.appendingPathComponent("feedsh.bash").path
        let output = try await runProgram(
            bash,
            [
                "--norc", "--noprofile", "-c",
                """
                source '\(script)'
                COMP_WORDS=(feedsh --eng); COMP_CWORD=1; COMP_LINE='feedsh --eng'; COMP_POINT=${#COMP_LINE}
                _feedsh feedsh --eng feedsh; printf '%s\\n' "${COMPREPLY[@]}"; echo --
                COMPREPLY=(); COMP_WORDS=(feedsh --engine ''); COMP_CWORD=2; COMP_LINE='feedsh --engine '; COMP_POINT=${#COMP_LINE}
                _feedsh feedsh '' --engine; printf '%s\\n' "${COMPREPLY[@]}"
                """,
            ]
        )
        #expect(output == "--engine\n--\nahc\nurlsession\n")
    }

    @Test(.enabled(if: shellAvailable("fish")))
    func fishCompletesAFlag() async throws {
        let fish = try #require(shellPath("fish"), "fish is not installed")
        let script = completionsDirectory.appendingPathComponent("feedsh.fish").path
        let output = try await runProgram(
            fish,
            ["--no-config", "-c", "source '\(script)'; complete -C 'feedsh --eng'; complete -C 'feedsh --json --no-c'"]
        )
        let words = output.split(separator: "\n").map { $0.prefix { $0 != "\t" } }
        #expect(words == ["--engine", "--no-color"])
    }

    @Test(.enabled(if: shellAvailable("zsh")))
    func zshCompletesAFlagAtARealPrompt() async throws {
        let zsh = try #require(shellPath("zsh"), "zsh is not installed")
        try await TmuxSession.with(command: { _ in ["PS1=zsh%# ", zsh, "-f"] }) { session in
            try await session.waitForScreen { $0.contains("zsh#") || $0.contains("zsh%") }
            session.keys("fpath=('\(completionsDirectory.path)' $fpath); autoload -U compinit; compinit -u", "Enter")
            session.keys("feedsh --eng", "Tab")
            try await session.waitForScreen { $0.contains("feedsh --engine") }
            session.keys("C-u")
            session.keys("feedsh --engine ", "Tab")
            try await session.waitForScreen { $0.contains("ahc") && $0.contains("urlsession") }
        }
    }
}

/// Runs a program to its end and returns its standard output. It waits without
/// holding a thread of Swift's pool: blocked, two of them (on two cores) stall
/// every fixture server in this process, and the tests beside it time out.
private func runProgram(_ path: String, _ arguments: [String]) async throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    async let text = readAll(output.fileHandleForReading)
    if !(await waitForExit(process, timeout: .seconds(60))) { process.terminate() }
    return await text
}

@Suite("Manual page")
struct ManualPageTests {
    /// Every option `--help` lists and every shell command `help` lists is in feedsh.1.
    @Test func documentsEveryOptionAndCommand() async throws {
        let page = try String(
            contentsOf: completionsDirectory.deletingLastPathComponent().appendingPathComponent("feedsh.1"),
            encoding: .utf8
        ).replacingOccurrences(of: "\\-", with: "-")
        let help = try await runFeedsh(["--help"])
        let options = help.standardOutput.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("-") else { return nil }
            return String(trimmed.prefix { $0 != " " && $0 != "," })
        }
        #expect(options.count >= 15)
        for option in options {
            #expect(page.contains(option), "feedsh.1 does not mention \(option)")
        }
        // The command list is generated from the specs (`make man`): it must be current.
        let generated = try await runFeedsh(["--generate-man-commands"]).standardOutput
        let raw = try String(
            contentsOf: completionsDirectory.deletingLastPathComponent().appendingPathComponent("feedsh.1"),
            encoding: .utf8
        )
        let start = try #require(raw.range(of: ".SH SHELL COMMANDS\n"))
        let end = try #require(raw.range(of: "\n.SH ", range: start.upperBound..<raw.endIndex))
        #expect(String(raw[start.lowerBound...end.lowerBound]) == generated, "run 'make man'")
        let commands = try await runFeedsh(["-c", "help"])
        let names = commands.standardOutput.split(separator: "\n").dropFirst().compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
        #expect(names.count >= 20)
        for name in names {
            #expect(page.contains(name), "feedsh.1 does not mention the shell command \(name)")
        }
    }
}
