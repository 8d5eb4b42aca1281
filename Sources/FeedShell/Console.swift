import Foundation
import Synchronization

/// Which stream a line goes to.
public enum OutputStreamKind: Sendable, Equatable {
    /// Results.
    case standardOutput
    /// Errors, warnings and progress meant for a person.
    case standardError
}

/// Where the shell's text ends up: the real streams, or a buffer in tests.
public protocol OutputSink: Sendable {
    func write(_ text: String, to stream: OutputStreamKind)
}

/// Writes to the process's standard output and error, unbuffered per call.
public struct StandardStreams: OutputSink {
    public init() {}

    public func write(_ text: String, to stream: OutputStreamKind) {
        let fd = stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return  // a closed pipe: nothing sensible left to do
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// Collects output in memory, for tests.
public final class CapturedOutput: OutputSink {
    private let buffers = Mutex<(out: String, err: String)>(("", ""))

    public init() {}

    public func write(_ text: String, to stream: OutputStreamKind) {
        buffers.withLock {
            if stream == .standardOutput { $0.out += text } else { $0.err += text }
        }
    }

    public var standardOutput: String { buffers.withLock { $0.out } }

    /// Forgets what was collected so far.
    public func clear() {
        buffers.withLock { $0 = ("", "") }
    }
    public var standardError: String { buffers.withLock { $0.err } }
}

/// The shell's view of the terminal: where to write and how wide it is.
public struct Console: Sendable {
    /// True when standard output is a terminal: then long titles are cut to the width.
    public let isTerminal: Bool
    /// Columns available, when standard output is a terminal.
    public let width: Int?
    let sink: any OutputSink

    public init(sink: any OutputSink, isTerminal: Bool, width: Int?) {
        self.sink = sink
        self.isTerminal = isTerminal
        self.width = width
    }

    /// The process's streams, sized from the terminal (`COLUMNS`, then 80, when the
    /// size cannot be read).
    public static func standard() -> Console {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        return Console(sink: StandardStreams(), isTerminal: isTerminal, width: isTerminal ? terminalWidth() : nil)
    }

    /// Prints result lines to standard output.
    public func print(_ text: String) {
        sink.write(text.hasSuffix("\n") ? text : text + "\n", to: .standardOutput)
    }

    /// Prints a line for a person to standard error.
    public func printError(_ text: String) {
        sink.write(text.hasSuffix("\n") ? text : text + "\n", to: .standardError)
    }

    /// The terminal's width now (it follows resizes): `COLUMNS`, then 80, when it
    /// cannot be read.
    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            return columns
        }
        return 80
    }
}
