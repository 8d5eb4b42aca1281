import Dispatch
import Foundation
import LineEditor
import Synchronization

extension Shell {
    /// Reads commands at a prompt until `quit`, Ctrl-D or SIGTERM/SIGHUP.
    ///
    /// Failures are reported and the shell goes on. Ctrl-C clears the line at the
    /// prompt and stops a foreground command (such as `wait`) without touching the
    /// downloads. Ctrl-D with downloads running asks before pausing them. History is
    /// saved on the way out; the caller's ``close()`` pauses what still runs.
    public func runInteractive(editor: LineEditor) async -> ExitStatus {
        terminal.editor = editor
        let watcher = SignalWatcher()
        let stopSignal = SignalFlag()
        watcher.on(SIGINT) { [terminal] in
            if let command = terminal.command {
                command.cancel()
            } else {
                editor.interrupt()
            }
        }
        watcher.on(SIGWINCH) { editor.resized() }
        for signal in [SIGTERM, SIGHUP] {
            watcher.on(signal) { [terminal] in
                stopSignal.set(signal)
                terminal.command?.cancel()
                editor.stop()
            }
        }
        defer {
            watcher.cancel()
            terminal.editor = nil
            editor.saveHistory()
        }

        while true {
            await terminal.refreshSnapshot(session)
            switch await editor.readLine(prompt: await prompt()) {
            case .line(let line):
                editor.addToHistory(line)
                let command = Task { await self.runInteractive(line: line) }
                terminal.command = command
                let outcome = await command.value
                terminal.command = nil
                if let signal = stopSignal.value { return Self.status(for: signal) }
                if outcome == .quit { return .success }
            case .endOfInput:
                let active = await session.downloads.all().filter { $0.state.isActive }.count
                guard active > 0 else {
                    console.print("")
                    return .success
                }
                let question =
                    "\(active) \(active == 1 ? "download is" : "downloads are") running. Pause and quit? [y/N] "
                switch await editor.readLine(prompt: question) {
                case .line(let answer) where answer.lowercased().hasPrefix("y"):
                    return .success
                case .stopped:
                    return Self.status(for: stopSignal.value ?? SIGTERM)
                default:
                    continue
                }
            case .stopped:
                return Self.status(for: stopSignal.value ?? SIGTERM)
            }
        }
    }

    private static func status(for signal: Int32) -> ExitStatus {
        signal == SIGHUP ? .hangUp : .terminated
    }
}

/// Delivers signals to closures through dispatch sources, instead of the default
/// action, until cancelled.
final class SignalWatcher {
    private var sources: [any DispatchSourceSignal] = []
    private var watched: [Int32] = []

    func on(_ signal: Int32, _ handler: @escaping @Sendable () -> Void) {
        Foundation.signal(signal, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        sources.append(source)
        watched.append(signal)
    }

    func cancel() {
        for source in sources { source.cancel() }
        for signal in watched { Foundation.signal(signal, SIG_DFL) }
        sources = []
        watched = []
    }
}

/// The signal that asked the shell to end, set from a signal handler's queue.
final class SignalFlag: Sendable {
    private let stored = Mutex<Int32?>(nil)

    func set(_ signal: Int32) { stored.withLock { $0 = signal } }
    var value: Int32? { stored.withLock { $0 } }
}
