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
    /// One write at a time, so that a long JSON line (more than a pipe's atomic 4 KiB)
    /// never interleaves with an event written from another task.
    private static let writing = Mutex(())

    public init() {}

    public func write(_ text: String, to stream: OutputStreamKind) {
        let fd = stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
        Self.writing.withLock { _ in Self.writeAll(text, to: fd) }
    }

    private static func writeAll(_ text: String, to fd: Int32) {
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

/// The shell's view of the terminal: where to write, how wide it is, and whether
/// results are text for a person or JSON lines (`--json`).
public struct Console: Sendable {
    /// True when standard output is a terminal: then long titles are cut to the width.
    public let isTerminal: Bool
    /// Columns available, when standard output is a terminal.
    public let width: Int?
    /// `--json`: results, events and errors are JSON objects on standard output, one a
    /// line, and nothing else is written there.
    public let json: Bool
    /// Bold table headings on standard output (a terminal, no `NO_COLOR`, no
    /// `--no-color`).
    public let color: Bool
    /// Red `error:` on standard error, under the same rules for that stream.
    public let errorColor: Bool
    /// Standard error is a terminal: foreground progress updates one line in place.
    public let errorIsTerminal: Bool
    let sink: any OutputSink

    public init(
        sink: any OutputSink,
        isTerminal: Bool,
        width: Int?,
        json: Bool = false,
        color: Bool = false,
        errorColor: Bool = false,
        errorIsTerminal: Bool = false
    ) {
        self.sink = sink
        self.isTerminal = isTerminal
        self.width = width
        self.json = json
        self.color = color && !json
        self.errorColor = errorColor && !json
        self.errorIsTerminal = errorIsTerminal && !json
    }

    /// The process's streams, sized from the terminal (`COLUMNS`, then 80, when the
    /// size cannot be read). Colour needs a terminal and neither `NO_COLOR` (any
    /// value, even empty) nor `noColor`.
    public static func standard(json: Bool = false, noColor: Bool = false) -> Console {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        let colorAllowed = !noColor && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        return Console(
            sink: StandardStreams(),
            isTerminal: isTerminal && !json,
            width: isTerminal && !json ? terminalWidth() : nil,
            json: json,
            color: colorAllowed && isTerminal,
            errorColor: colorAllowed && isatty(STDERR_FILENO) == 1,
            errorIsTerminal: isatty(STDERR_FILENO) == 1
        )
    }

    /// Writes one JSON object as a line on standard output.
    public func emit(_ value: JSONValue) {
        sink.write(value.text + "\n", to: .standardOutput)
    }

    /// A table whose heading is bold when colour is on.
    func table(header: [String], rows: [[String]], rightAligned: Set<Int>) -> String {
        Render.table(header: header, rows: rows, rightAligned: rightAligned, width: width, boldHeader: color)
    }

    /// `error:` (or another prefix), red when colour is on for standard error.
    func errorPrefix(_ prefix: String) -> String {
        errorColor ? "\u{1B}[31m\(prefix):\u{1B}[0m" : "\(prefix):"
    }

    /// Prints result lines to standard output.
    public func print(_ text: String) {
        sink.write(text.hasSuffix("\n") ? text : text + "\n", to: .standardOutput)
    }

    /// Writes text to standard error as it is (no newline added), for a progress
    /// line redrawn in place.
    func writeError(_ text: String) {
        sink.write(text, to: .standardError)
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
