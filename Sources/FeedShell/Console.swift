import FeedServices
import Foundation
import PlainText
import Synchronization
import TerminalKit

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
        Self.writing.withLock { _ in TerminalOutput.write(text, to: fd) }
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
    /// A fixed width (tests); nil follows the terminal.
    private let fixedWidth: Int?
    /// `--json`: results, events and errors are JSON objects on standard output, one a
    /// line, and nothing else is written there.
    public let json: Bool
    /// Bold table headings on standard output (``ColorRule``).
    public let color: Bool
    /// Red `error:` on standard error, under the same rules for that stream.
    public let errorColor: Bool
    /// Standard error is a terminal: foreground progress updates one line in place.
    public let errorIsTerminal: Bool
    /// The spinner of a slow foreground command, erased before anything is written.
    let activity = Activity()
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
        self.fixedWidth = width
        self.json = json
        self.color = color && !json
        self.errorColor = errorColor && !json
        self.errorIsTerminal = errorIsTerminal && !json
    }

    /// Columns available now, when standard output is a terminal (it follows
    /// resizes); nil otherwise.
    public var width: Int? {
        if let fixedWidth { return fixedWidth }
        return isTerminal ? TerminalSize.columns() : nil
    }

    /// The process's streams. Colour follows ``ColorRule``: a terminal, no
    /// `NO_COLOR`, no `--no-color`, no `TERM=dumb`.
    public static func standard(json: Bool = false, noColor: Bool = false) -> Console {
        let isTerminal = isatty(STDOUT_FILENO) == 1
        let environment = ProcessInfo.processInfo.environment
        return Console(
            sink: StandardStreams(),
            isTerminal: isTerminal && !json,
            width: nil,
            json: json,
            color: ColorRule.allows(isTerminal: isTerminal, noColorFlag: noColor, environment: environment),
            errorColor: ColorRule.allows(
                isTerminal: isatty(STDERR_FILENO) == 1,
                noColorFlag: noColor,
                environment: environment
            ),
            errorIsTerminal: isatty(STDERR_FILENO) == 1
        )
    }

    /// Writes one JSON object as a line on standard output.
    public func emit(_ value: JSONValue) {
        activity.stop()
        sink.write(value.text + "\n", to: .standardOutput)
    }

    /// `error:` (or another prefix), red when colour is on for standard error.
    func errorPrefix(_ prefix: String) -> String {
        errorColor ? Style.red(prefix + ":") : "\(prefix):"
    }

    /// Columns of standard error when it is a terminal (a fixed width in tests);
    /// nil otherwise.
    var errorWidth: Int? {
        guard errorIsTerminal || fixedWidth != nil else { return nil }
        return fixedWidth ?? TerminalSize.columns()
    }

    /// `prefix: message` as one error line, wrapped at word boundaries to the
    /// terminal like the rest of the output (the prefix coloured after wrapping,
    /// so that its escape codes take no columns).
    func errorLine(_ prefix: String, _ message: String) -> String {
        let plain = "\(prefix): \(message)"
        guard let columns = errorWidth else { return errorPrefix(prefix) + " " + message }
        let wrapped = TextLayout.wrap(plain, toWidth: columns)
        return errorPrefix(prefix) + wrapped.dropFirst(prefix.count + 1)
    }

    /// Prints result lines to standard output.
    public func print(_ text: String) {
        activity.stop()
        sink.write(text.hasSuffix("\n") ? text : text + "\n", to: .standardOutput)
    }

    /// Writes text to standard error as it is (no newline added).
    func writeError(_ text: String) {
        activity.stop()
        sink.write(text, to: .standardError)
    }

    /// Redraws the one progress line of a foreground command on standard error
    /// (`updating 3/8`, `41.2% of 85.7 kB`), in place; only on a terminal. True
    /// when it was drawn.
    @discardableResult
    func progressLine(_ text: String) -> Bool {
        guard errorIsTerminal else { return false }
        writeError("\r\u{1B}[K" + SafeText.line(text))
        return true
    }

    /// A line for a person on standard error over another program's status line
    /// (mpv's, while it has the terminal): that line is erased first.
    func printOverStatusLine(_ text: String) {
        printError(errorIsTerminal ? "\r\u{1B}[K" + text : text)
    }

    /// Erases the progress line, before the command's result is printed.
    func endProgressLine() {
        guard errorIsTerminal else { return }
        writeError("\r\u{1B}[K")
    }

    /// Prints a line for a person to standard error.
    public func printError(_ text: String) {
        activity.stop()
        sink.write(text.hasSuffix("\n") ? text : text + "\n", to: .standardError)
    }

    /// Prints a paragraph for a person to standard error, wrapped at word
    /// boundaries to the terminal's width (as it is, elsewhere).
    func printParagraph(_ text: String) {
        printError(width.map { TextLayout.wrap(text, toWidth: $0) } ?? text)
    }

    /// Shows a spinner for a slow foreground command on a terminal, until the
    /// command writes something or ends.
    func startSpinner(_ label: String) {
        guard errorIsTerminal else { return }
        let sink = self.sink
        activity.start(Spinner(label) { sink.write($0, to: .standardError) })
    }
}

/// The foreground command's spinner, if one is turning.
final class Activity: Sendable {
    private let spinner = Mutex<Spinner?>(nil)

    func start(_ new: Spinner) {
        spinner.withLock {
            $0?.stop(); $0 = new
        }
    }

    /// Erases the spinner; true when it had been drawn.
    @discardableResult
    func stop() -> Bool {
        let current = spinner.withLock { spinner in
            defer { spinner = nil }
            return spinner
        }
        return current?.stop() ?? false
    }
}
