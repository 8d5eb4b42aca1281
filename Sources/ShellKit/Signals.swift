import Foundation
import Synchronization

/// Delivers signals to closures, instead of the default action, until cancelled.
///
/// The handler is installed with `sigaction` before ``on(_:_:)`` returns, so from
/// then on no signal is lost or meets the default action. (libdispatch's signal
/// sources install their handler later, from their manager thread; a signal in
/// between met the `SIG_IGN` set meanwhile and was discarded, and feedsh went on
/// waiting for input for ever.) The handler only writes the signal's number to a
/// pipe, which is async-signal-safe; a thread of its own reads the pipe and calls
/// the closures there.
public final class SignalWatcher: Sendable {
    private let id = SignalRelay.nextID.add(1, ordering: .relaxed).newValue
    private let watched = Mutex<Set<Int32>>([])

    public init() {}

    public func on(_ signal: Int32, _ handler: @escaping @Sendable () -> Void) {
        SignalRelay.handlers.withLock { $0[signal, default: [:]][id] = handler }
        watched.withLock { _ = $0.insert(signal) }
        SignalRelay.install(signal)
    }

    public func cancel() {
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
public final class SignalFlag: Sendable {
    public init() {}

    private let stored = Mutex<Int32?>(nil)

    public func set(_ signal: Int32) { stored.withLock { $0 = signal } }
    public var value: Int32? { stored.withLock { $0 } }
}
