import CFileIO
import Foundation

/// A program run through `/bin/sh -c` in feedsh's own process group, so that it is
/// in the terminal's foreground and may read keys and set the terminal's mode (the
/// player). Foundation's `Process` starts a new session instead, where such
/// programs cannot reach the terminal. The pager, whose process lives only as long
/// as one call, runs through swift-subprocess (`TerminalKit.Pager`); the player's
/// pid is followed across a tracking loop, and the background feedsh outlives the
/// shell, which a process scoped to one closure cannot do.
public struct ForegroundProcess: Sendable {
    public let pid: pid_t

    /// How a process ended.
    public enum Exit: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(SIGKILL): "was killed (SIGKILL)"
            case .signaled(SIGTERM): "was terminated (SIGTERM)"
            case .signaled(let signal): "was killed by signal \(signal)"
            }
        }

        /// `sh` says 127 when it cannot find the program.
        public var notFound: Bool { self == .exited(127) }

        /// Ended by a signal.
        public var isSignal: Bool {
            if case .signaled = self { true } else { false }
        }
    }

    /// Starts `command` with standard input from `input` and standard output to
    /// `output` (file descriptors of this process; nil keeps feedsh's own). Nil when
    /// it could not be started.
    public static func start(_ command: String, input: Int32? = nil, output: Int32? = nil) -> ForegroundProcess? {
        try? spawn(["/bin/sh", "-c", command], input: input, output: output).get()
    }

    /// Starts the program `arguments` name (found in `PATH` unless it has a
    /// slash), without a shell, as ``start(_:input:output:)`` does. Nil when it is
    /// not there or could not be started.
    public static func start(arguments: [String], input: Int32? = nil, output: Int32? = nil) -> ForegroundProcess? {
        guard let program = arguments.first, let path = find(program) else { return nil }
        return try? spawn([path] + arguments.dropFirst(), input: input, output: output).get()
    }

    /// Starts `arguments` (the program's path first) with the standard streams
    /// given (file descriptors of this process; nil keeps feedsh's own) and no other
    /// of feedsh's files, sockets or pipes; in a session of its own when
    /// `newSession` (setsid: no terminal, no SIGHUP from this one). The process, or
    /// the error posix_spawn gave.
    ///
    /// The program starts with no signal blocked and every signal at its default:
    /// a thread of Swift's pool blocks signals, and feedsh ignores some (it watches
    /// them), and both would be inherited (mpv would not stop on SIGTERM or ^C).
    public static func spawn(
        _ arguments: [String],
        input: Int32? = nil,
        output: Int32? = nil,
        error: Int32? = nil,
        newSession: Bool = false
    ) -> Result<ForegroundProcess, POSIXError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, target) in [(input, STDIN_FILENO), (output, STDOUT_FILENO), (error, STDERR_FILENO)] {
            if let fd, fd != target { posix_spawn_file_actions_adddup2(&actions, fd, target) }
        }
        feedsh_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (newSession ? feedsh_spawn_setsid_flag() : 0)
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment: [UnsafeMutablePointer<CChar>?] = inheritedEnvironment().map { strdup($0) } + [nil]
        defer { for pointer in environment { free(pointer) } }
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &environment)
        guard result == 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)) }
        return .success(ForegroundProcess(pid: pid))
    }

    /// The variables that hold secrets feedsh was given: no program it starts
    /// (the player, the background feedsh, the pager) gets them.
    public static let secretVariables: Set<String> = [
        "FEEDSH_FEED_PASSWORD", "FEEDSH_SYNC_PASSWORD", "FEEDSH_PODCASTINDEX_SECRET", "FEEDSH_SERVE_PASSWORD",
    ]

    /// This process's environment, as `NAME=value` entries, less ``secretVariables``.
    static func inheritedEnvironment() -> [String] {
        var entries: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            let name = text.prefix { $0 != "=" }
            if !secretVariables.contains(String(name)) { entries.append(text) }
            cursor += 1
        }
        return entries
    }

    /// Waits for the process to end. Blocks the calling thread: call it off Swift's
    /// cooperative pool (``exit()`` does).
    public func waitBlocking() -> Exit {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// Waits for the process to end on a thread of its own.
    public func exit() async -> Exit {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: waitBlocking()) }
        }
    }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    /// `text` quoted for `/bin/sh`: `'it'\''s'`.
    public static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The path of `program` found in `PATH` (or as given when it has a slash), or
    /// nil when there is none to run.
    public static func find(_ program: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = directory + "/" + program
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
