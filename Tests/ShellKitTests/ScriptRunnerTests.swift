import Foundation
import Synchronization
import Testing

@testable import ShellKit

@Suite("Script runner")
struct ScriptRunnerTests {
    struct Failed: Error, Equatable {
        let message: String
    }

    /// A runner whose statements are recorded; `fail` fails, `quit` quits.
    final class Recorder: Sendable {
        let ran = Mutex<[String]>([])

        var runner: ScriptRunner<Failed> {
            ScriptRunner(
                execute: { words throws(Failed) in
                    self.ran.withLock { $0.append(words.joined(separator: " ")) }
                    if words.first == "fail" { throw Failed(message: "failed: \(words.dropFirst().joined())") }
                    return words.first == "quit" ? .quit : .proceed
                },
                syntaxError: { Failed(message: $0) },
                interrupted: Failed(message: "interrupted")
            )
        }
    }

    @Test func stopsAtTheFirstFailureUnlessKeepingGoing() async {
        let lines = ScriptLines(text: "a 1; fail x; b\nc\n", source: "script")
        let stopping = Recorder()
        var reported: [String] = []
        let first = await stopping.runner.run(script: lines, keepGoing: false) { error, command, line in
            reported.append("\(line.location ?? "-"): \(command ?? "-"): \(error.message)")
        }
        #expect(first == .ended(failed: true))
        #expect(stopping.ran.withLock { $0 } == ["a 1", "fail x"])
        #expect(reported == ["script:1: fail: failed: x"])

        let going = Recorder()
        let second = await going.runner.run(script: lines, keepGoing: true) { _, _, _ in }
        #expect(second == .ended(failed: true))
        #expect(going.ran.withLock { $0 } == ["a 1", "fail x", "b", "c"])
    }

    @Test func quitEndsTheScriptAndSyntaxErrorsAreFailures() async {
        let recorder = Recorder()
        let outcome = await recorder.runner.run(
            script: ScriptLines(text: "a; quit; b\nc", source: nil),
            keepGoing: false
        ) { _, _, _ in }
        #expect(outcome == .ended(failed: false))
        #expect(recorder.ran.withLock { $0 } == ["a", "quit"])
        var messages: [String] = []
        _ = await recorder.runner.run(script: ScriptLines(text: "echo 'open", source: nil), keepGoing: true) {
            error,
            command,
            _ in messages.append("\(command ?? "-"): \(error.message)")
        }
        #expect(messages == ["-: unterminated single quote"])
    }

    @Test func sourcingTheSameFileTwiceIsACycle() async {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("a.feedsh").path
        #expect(SourceStack.refusal(for: path) == nil)
        let inner = await SourceStack.with(path) { SourceStack.refusal(for: path) }
        #expect(inner == .cycle)
        let deep = await nest(SourceStack.depthLimit) { SourceStack.refusal(for: "/elsewhere") }
        #expect(deep == .tooDeep)
    }

    private func nest(_ depth: Int, _ body: @escaping @Sendable () -> SourceStack.Refusal?) async -> SourceStack
        .Refusal?
    {
        guard depth > 0 else { return body() }
        return await SourceStack.with("/tmp/level-\(depth)") { await nest(depth - 1, body) }
    }
}
