import Foundation
import ShellKit
import TerminalKit

extension Shell {
    /// How long a signalled script waits for the command it cancelled to finish.
    static let cancelGrace = Duration.seconds(5)

    /// Runs a script as ``run(script:keepGoing:)`` does, and ends it early on SIGINT
    /// (130), SIGTERM (143) or SIGHUP (129): the command running is cancelled and the
    /// status returned at once, even while the script waits for a line of standard
    /// input. The caller's ``close()`` then pauses the downloads, keeping their
    /// `.part` files.
    public func runScript<Lines: Sequence<ScriptLine> & Sendable>(
        _ script: Lines,
        keepGoing: Bool
    ) async -> ExitStatus {
        let (outcomes, continuation) = AsyncStream.makeStream(of: ExitStatus.self)
        // The handlers come first: a signal in the moment after the script starts
        // must not meet the default action (status 15 instead of 143).
        let run = CancellableRun()
        let watcher = SignalWatcher()
        let downloads = session.services.downloads.engine
        for (signal, status) in [(SIGINT, ExitStatus.interrupted), (SIGTERM, .terminated), (SIGHUP, .hangUp)] {
            watcher.on(signal) {
                // The signal's status first: the cancelled script then reports
                // `.interrupted`, which must not win the race (SIGTERM is 143).
                continuation.yield(status)
                downloads.stopStarting()
                run.cancel()
            }
        }
        defer { watcher.cancel() }
        run.start {
            continuation.yield(await self.run(script: script, keepGoing: keepGoing))
        }
        var iterator = outcomes.makeAsyncIterator()
        let status = await iterator.next() ?? .failure
        if status == .interrupted || status == .terminated || status == .hangUp {
            // A command cancelled mid-way finishes its own work first (a `play`
            // records where it stopped), for a moment at most; a script waiting for
            // its next line of input is not waited for.
            if commandsRunning.load(ordering: .relaxed) > 0 {
                let limit = Task {
                    try? await Task.sleep(for: Self.cancelGrace)
                    continuation.yield(status)
                }
                _ = await iterator.next()
                limit.cancel()
            }
            // What happens to the downloads is said only when there are some:
            // leaving pauses them (their .part files stay for `resume`).
            let running = await downloads.all().filter { $0.state.isActive }.count
            console.printError(
                running == 0
                    ? "feedsh: interrupted"
                    : "feedsh: interrupted; pausing \(Formatting.count(running, "download"))"
            )
        }
        return status
    }
}
