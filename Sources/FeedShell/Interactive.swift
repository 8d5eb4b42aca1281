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

/// Delivers signals to closures, instead of the default action, until cancelled.
///
/// The handler is installed with `sigaction` before ``on(_:_:)`` returns, so from
/// then on no signal is lost or meets the default action. (libdispatch's signal
/// sources install their handler later, from their manager thread; a signal in
/// between met the `SIG_IGN` set meanwhile and was discarded, and feedsh went on
/// waiting for input for ever.) The handler only writes the signal's number to a
/// pipe, which is async-signal-safe; a thread of its own reads the pipe and calls
/// the closures there.
final class SignalWatcher: Sendable {
    private let id = SignalRelay.nextID.add(1, ordering: .relaxed).newValue
    private let watched = Mutex<Set<Int32>>([])

    func on(_ signal: Int32, _ handler: @escaping @Sendable () -> Void) {
        SignalRelay.handlers.withLock { $0[signal, default: [:]][id] = handler }
        watched.withLock { _ = $0.insert(signal) }
        SignalRelay.install(signal)
    }

    func cancel() {
        let signals = watched.withLock { watched in
            defer { watched = [] }
            return watched
        }
        for signal in signals {
            let unused = SignalRelay.handlers.withLock { handlers in
                handlers[signal]?[id] = nil
                return handlers[signal]?.isEmpty ?? true
            }
            if unused { Foundation.signal(signal, SIG_DFL) }
        }
    }
}

/// The process-wide half of ``SignalWatcher``: the pipe, the handler that writes to
/// it, the thread that reads it, and the closures by signal.
private enum SignalRelay {
    static let nextID = Atomic<Int>(0)
    static let handlers = Mutex<[Int32: [Int: @Sendable () -> Void]]>([:])

    /// The pipe's write end, made (with the reading thread) before any handler that
    /// uses it is installed. Non-blocking: a handler never waits; a full pipe
    /// already holds a wake-up.
    static let writeEnd: Int32 = {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let readEnd = fds[0]
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let got = read(readEnd, &byte, 1)
                if got < 0, errno == EINTR { continue }
                guard got == 1 else { return }
                let signal = Int32(byte)
                let closures = handlers.withLock { Array(($0[signal] ?? [:]).values) }
                for closure in closures { closure() }
            }
        }
        reader.name = "feedsh-signals"
        reader.start()
        return fds[1]
    }()

    static func install(_ signal: Int32) {
        _ = writeEnd
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(SignalRelay.writeEnd, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        // Restarted: a read of standard input goes on after the handler returns.
        action.sa_flags = SA_RESTART
        sigaction(signal, &action, nil)
    }
}

/// The signal that asked the shell to end, set from a signal handler's queue.
final class SignalFlag: Sendable {
    private let stored = Mutex<Int32?>(nil)

    func set(_ signal: Int32) { stored.withLock { $0 = signal } }
    var value: Int32? { stored.withLock { $0 } }
}
