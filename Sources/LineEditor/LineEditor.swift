@preconcurrency import CEditLine
import Dispatch
import Foundation
import PlainText
import ShellKit
import Synchronization
import TerminalKit

/// A line editor on libedit: prompt, Emacs-style editing, history, tab completion,
/// and output from other tasks printed above the prompt without touching the line
/// being typed.
///
/// libedit runs on one serial queue. While `el_gets` waits, a custom read function
/// polls standard input and a wake-up pipe; other tasks queue messages or a new
/// status area and write a byte to the pipe, and the read function draws them above
/// the prompt and asks libedit to redraw the prompt, the buffer and the cursor.
public final class LineEditor: @unchecked Sendable {
    // @unchecked Sendable, and why it is safe: `editLine`, `history` and every
    // property below marked "editor queue" are touched only by code running on
    // `queue` (el_gets and the libedit callbacks it makes, and the public methods
    // that hop onto `queue`). State shared with other threads is in `shared`, a
    // Mutex. `wake` is a pipe whose file descriptors are fixed at init.

    /// What `readLine` got.
    public enum Input: Sendable, Equatable {
        case line(String)
        /// Ctrl-D on an empty line, or standard input closed.
        case endOfInput
        /// ``stop()`` was called (a signal asked the shell to end).
        case stopped
    }

    /// What Tab does with the text before the cursor (ShellKit's value).
    public typealias Completion = ShellKit.Completion

    private struct Shared {
        var messages: [String] = []
        var status: [String] = []
        var statusChanged = false
        var interrupt = false
        var stop = false
        var resized = false
        var prompt = "> "
        /// A question is being asked: the prompt stays until it is answered.
        var promptFixed = false
        /// True while `el_gets` waits for a line: output then goes above the prompt.
        var reading = false
        /// Ctrl-Z: stop the process, then restore the terminal and redraw.
        var suspend = false
        /// Ctrl-L: clear the screen and redraw.
        var clearScreen = false
        /// While a command runs (`wait`), the status area is drawn without a prompt.
        var busyStatus = false
        /// Rows of status drawn while busy, above the cursor.
        var busyRows = 0
        /// Another program (the pager) has the screen: messages wait.
        var held = false
    }

    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private let historyFile: URL?
    private let queue = DispatchQueue(label: "feedsh.line-editor")
    private let shared = Mutex(Shared())
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let completer: (@Sendable (String) -> Completion)?
    /// Editor queue: the prompt libedit shows, kept alive for its callback.
    fileprivate var promptBytes: UnsafeMutablePointer<CChar>
    /// Editor queue: rows of status area on screen above the prompt.
    private var statusRows = 0
    /// Editor queue: the status lines on screen, to count their rows again after a
    /// resize (a terminal that reflows wraps them anew).
    private var statusLines: [String] = []
    /// Editor queue: false when the prompt is not on screen (after Ctrl-Z and `fg`).
    private var lineOnScreen = true
    /// The terminal's settings before libedit changed them, for Ctrl-Z.
    private let cookedMode: termios?
    /// Editor queue: the terminal's width.
    private var columns: Int

    /// The user's character type, set once for the process before the first editor
    /// (setlocale is not thread-safe: a static is initialised exactly once).
    private static let locale: Void = { setlocale(LC_CTYPE, "") }()
    /// libedit's set-up reads global terminal state: one at a time.
    private static let initLock = Mutex(())

    /// Creates an editor on the process's terminal, loading history from
    /// `historyFile` if given. `completer` answers Tab. Returns nil when libedit
    /// cannot start.
    public init?(
        programName: String,
        historyFile: URL? = nil,
        historySize: Int = 1000,
        completer: (@Sendable (String) -> Completion)? = nil
    ) {
        _ = Self.locale
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        guard let editLine = Self.initLock.withLock({ _ in el_init(programName, stdin, stdout, stderr) }) else {
            close(fds[0])
            close(fds[1])
            return nil
        }
        guard let history = history_init() else {
            el_end(editLine)
            close(fds[0])
            close(fds[1])
            return nil
        }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        self.editLine = editLine
        self.history = history
        self.historyFile = historyFile
        self.wakeRead = fds[0]
        self.wakeWrite = fds[1]
        self.completer = completer
        self.promptBytes = strdup("> ")
        self.columns = Self.terminalColumns()
        var mode = termios()
        self.cookedMode = tcgetattr(STDIN_FILENO, &mode) == 0 ? mode : nil
        feedsh_history_setsize(history, Int32(historySize))
        feedsh_history_setunique(history, 1)
        feedsh_el_set_hist(editLine, history)
        feedsh_el_set_editor(editLine, "emacs")
        // Signals are the shell's: libedit must not install handlers of its own.
        feedsh_el_set_signal(editLine, 0)
        feedsh_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
        feedsh_el_set_prompt(editLine, promptCallback)
        feedsh_el_set_getcfn(editLine, readCallback)
        feedsh_el_add_function(editLine, "feedsh-interrupt", "discard the line (Ctrl-C)", interruptCallback)
        feedsh_el_bind(editLine, "^C", "feedsh-interrupt")
        feedsh_el_add_function(editLine, "feedsh-clear", "clear the screen (Ctrl-L)", clearCallback)
        feedsh_el_bind(editLine, "^L", "feedsh-clear")
        if completer != nil {
            feedsh_el_add_function(editLine, "feedsh-complete", "complete the word", completeCallback)
            feedsh_el_bind(editLine, "^I", "feedsh-complete")
        }
        // ~/.editrc, if the user has one.
        el_source(editLine, nil)
        if let historyFile {
            feedsh_history_load(history, historyFile.path)
        }
    }

    deinit {
        el_end(editLine)
        history_end(history)
        free(promptBytes)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Shows `prompt` and waits for a line, without blocking the caller's thread.
    /// A `question` keeps its prompt until answered (``setPrompt(_:)`` waits).
    public func readLine(prompt: String, question: Bool = false) async -> Input {
        shared.withLock {
            $0.prompt = prompt
            $0.promptFixed = question
            $0.stop = false
        }
        return await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: readLineOnQueue())
            }
        }
    }

    private func readLineOnQueue() -> Input {
        setPromptBytes(shared.withLock { $0.prompt })
        statusRows = 0
        statusLines = []
        lineOnScreen = true
        shared.withLock {
            $0.reading = true
            // Draw the status area with the first prompt.
            $0.statusChanged = !$0.status.isEmpty
        }
        defer {
            shared.withLock {
                $0.reading = false
                $0.promptFixed = false
            }
        }
        var count: Int32 = 0
        while true {
            // Raw before the prompt shows: el_gets draws it and only then leaves
            // cooked mode, and a Ctrl-D typed in between became an end of file the
            // terminal kept to itself (feedsh waited on), any other key an echo.
            feedsh_el_prep_term(editLine, 1)
            let line = el_gets(editLine, &count)
            if shared.withLock({ $0.stop }) {
                // The prompt and its line stay as they were; the status area drawn
                // below goes (the next prompt draws its own), and output goes on
                // from the next row.
                let hadStatus = statusRows > 0
                clearStatusArea(lineEntered: false)
                if !hadStatus { writeAll("\r\n") }
                return .stopped
            }
            guard let line else {
                if count == -1, errno == EINTR { continue }
                clearStatusArea(lineEntered: false)
                return .endOfInput
            }
            var text = String(cString: line)
            if text.hasSuffix("\n") { text.removeLast() }
            clearStatusArea(lineEntered: true)
            return .line(text)
        }
    }

    /// Prints `lines` above the prompt, or at once (on standard error) while no line
    /// is being read, during a command.
    public func post(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let queued = shared.withLock { state in
            if state.reading || state.held {
                state.messages += lines
            } else {
                // Above the status drawn while busy, which is drawn again below.
                var out = Self.erase(rows: state.busyRows)
                for line in lines { out += line + "\n" }
                if state.busyStatus {
                    for line in state.status { out += line + "\n" }
                    state.busyRows = state.status.count
                }
                TerminalOutput.write(out, to: STDERR_FILENO)
            }
            return state.reading
        }
        if queued { wake() }
    }

    /// Replaces the status area drawn above the prompt (empty: none). While busy
    /// (``showStatusWhileBusy(_:)``) it is drawn at once, without a prompt.
    public func setStatus(_ lines: [String]) {
        let reading = shared.withLock { state in
            guard state.status != lines else { return true }
            state.status = lines
            state.statusChanged = true
            if !state.reading, state.busyStatus {
                var out = Self.erase(rows: state.busyRows)
                for line in lines { out += line + "\n" }
                state.busyRows = lines.count
                TerminalOutput.write(out, to: STDERR_FILENO)
            }
            return state.reading
        }
        if reading { wake() }
    }

    /// Whether the status area is drawn while a command runs.
    public var showsStatusWhileBusy: Bool {
        shared.withLock { $0.busyStatus && !$0.reading }
    }

    /// Keeps messages back while another program (a pager) has the screen; they are
    /// printed above the next prompt.
    public func holdOutput(_ on: Bool) {
        shared.withLock { $0.held = on }
    }

    /// While a command runs and no line is read, draws the status area (on) or
    /// erases it (off).
    public func showStatusWhileBusy(_ on: Bool) {
        shared.withLock { state in
            guard !state.reading else { return }
            var out = Self.erase(rows: state.busyRows)
            state.busyRows = 0
            state.busyStatus = on
            if on {
                for line in state.status { out += line + "\n" }
                state.busyRows = state.status.count
            }
            TerminalOutput.write(out, to: STDERR_FILENO)
        }
    }

    /// Moves up `rows` rows to the start of a block drawn above the cursor and
    /// erases from there down.
    private static func erase(rows: Int) -> String {
        // The block and the row the cursor is on (where a ^C may have been echoed).
        rows > 0 ? eraseRows(up: rows, count: rows + 1) : ""
    }

    /// Moves up `up` rows and erases `count` rows from there down, one at a time,
    /// leaving the cursor at column 0 of the first. Never ED ("erase below"): tmux
    /// and terminals like it push the whole screen into the scrollback when it
    /// clears from the top-left corner, so a status area at the top of the screen
    /// (after Ctrl-L) would flood the scrollback at every redraw.
    static func eraseRows(up: Int, count: Int) -> String {
        var out = "\r" + (up > 0 ? "\u{1B}[\(up)A" : "")
        guard count > 0 else { return out }
        for row in 0..<count {
            out += "\u{1B}[2K" + (row < count - 1 ? "\u{1B}[B" : "")
        }
        return out + (count > 1 ? "\u{1B}[\(count - 1)A" : "")
    }

    /// Changes the prompt of the line being read; a question's prompt stays until it
    /// is answered.
    public func setPrompt(_ prompt: String) {
        shared.withLock {
            guard $0.prompt != prompt, !$0.promptFixed else { return }
            $0.prompt = prompt
            $0.statusChanged = true
        }
        wake()
    }

    /// Changes the words of the question being asked (its count of running
    /// downloads, say); nothing when no question is asked.
    public func updateQuestion(_ prompt: String) {
        shared.withLock {
            guard $0.promptFixed, $0.prompt != prompt else { return }
            $0.prompt = prompt
            $0.statusChanged = true
        }
        wake()
    }

    /// Whether a question is being asked (Ctrl-C then withdraws it: ``stop()``).
    public var isAskingQuestion: Bool {
        shared.withLock { $0.reading && $0.promptFixed }
    }

    /// Ctrl-Z: restores the terminal's own mode, stops the process and, when it is
    /// continued (`fg`), takes the terminal back and redraws the prompt and the line.
    /// Between commands the process just stops.
    public func suspend() {
        let reading = shared.withLock { state in
            if state.reading { state.suspend = true }
            return state.reading
        }
        if reading {
            wake()
        } else {
            raise(SIGSTOP)
        }
    }

    /// Ctrl-C at the prompt: discard the line being typed.
    public func interrupt() {
        shared.withLock { $0.interrupt = true }
        wake()
    }

    /// Ends the current `readLine` with ``Input/stopped``.
    public func stop() {
        shared.withLock { $0.stop = true }
        wake()
    }

    /// The terminal changed size.
    public func resized() {
        shared.withLock { $0.resized = true }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = Foundation.write(wakeWrite, &byte, 1)
    }

    // MARK: Editor queue

    /// libedit's read function: the next character typed, drawing queued output and
    /// handling wake-ups while it waits.
    fileprivate func readCharacter(_ out: UnsafeMutablePointer<wchar_t>) -> Int32 {
        while true {
            let (interrupted, stopped, suspend) = shared.withLock { state in
                defer {
                    state.interrupt = false
                    state.suspend = false
                }
                return (state.interrupt, state.stop, state.suspend)
            }
            if stopped { return 0 }
            if suspend { suspendOnQueue() }
            if interrupted {
                out.pointee = 3  // ^C, bound to feedsh-interrupt
                return 1
            }
            drawPending()
            var fds = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &drain, drain.count) > 0 {}
                continue
            }
            if fds[0].revents != 0 {
                return readUTF8Character(out)
            }
        }
    }

    /// One UTF-8 character from standard input as a wide character.
    private func readUTF8Character(_ out: UnsafeMutablePointer<wchar_t>) -> Int32 {
        var first: UInt8 = 0
        let got = read(STDIN_FILENO, &first, 1)
        if got == 0 { return 0 }
        if got < 0 { return errno == EINTR || errno == EAGAIN ? readCharacter(out) : -1 }
        let length =
            first < 0x80 ? 1 : first >> 5 == 0b110 ? 2 : first >> 4 == 0b1110 ? 3 : first >> 3 == 0b11110 ? 4 : 1
        var bytes = [first]
        while bytes.count < length {
            var next: UInt8 = 0
            guard read(STDIN_FILENO, &next, 1) == 1 else { break }
            bytes.append(next)
        }
        let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first ?? "\u{FFFD}"
        out.pointee = wchar_t(bitPattern: scalar.value)
        return 1
    }

    /// Prints queued messages and the status area above the prompt, then has
    /// libedit redraw the prompt and the line.
    private func drawPending() {
        let (messages, status, changed, resized, prompt, clear) = shared.withLock { state in
            defer {
                state.messages = []
                state.statusChanged = false
                state.resized = false
                state.clearScreen = false
            }
            return (
                state.messages, state.status, state.statusChanged, state.resized, state.prompt, state.clearScreen
            )
        }
        if resized {
            el_resize(editLine)
            columns = Self.terminalColumns()
            // A terminal that reflows has wrapped the lines drawn for the old width.
            statusRows = statusLines.reduce(0) { $0 + TextLayout.rows($1, columns: columns) }
        }
        guard !messages.isEmpty || changed || resized || clear || !lineOnScreen else { return }
        setPromptBytes(prompt)
        var out = "\r"
        if clear {
            // The visible screen, once (a terminal may keep what was on it in its
            // scrollback); the redraws after it erase row by row.
            out += "\u{1B}[H\u{1B}[J"
        } else {
            let (above, lineRows) = lineOnScreen ? (cursorRow(), lineRowCount()) : (0, 1)
            out = Self.eraseRows(up: statusRows + above, count: statusRows + lineRows)
        }
        for line in messages { out += line + "\r\n" }
        for line in status { out += line + "\r\n" }
        statusLines = status
        statusRows = status.reduce(0) { $0 + TextLayout.rows($1, columns: columns) }
        lineOnScreen = true
        writeAll(out)
        feedsh_el_refresh(editLine)
    }

    /// On the editor queue while reading: gives the terminal back in its own mode,
    /// stops, and on `fg` takes it again and has the prompt and line redrawn.
    private func suspendOnQueue() {
        var raw = termios()
        let haveRaw = tcgetattr(STDIN_FILENO, &raw) == 0
        if var cooked = cookedMode { tcsetattr(STDIN_FILENO, TCSADRAIN, &cooked) }
        writeAll("\r\n")
        // raise, not kill(getpid()): a signal sent to the process may be taken by
        // another thread, and this one would run on (setting the editor's mode
        // again) before the stop; one sent to this thread stops it here.
        raise(SIGSTOP)
        // Continued (`fg`): the editor's mode again, and everything redrawn.
        if haveRaw { tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) }
        el_resize(editLine)
        columns = Self.terminalColumns()
        statusRows = 0
        statusLines = []
        lineOnScreen = false
        shared.withLock { $0.statusChanged = true }
    }

    /// Removes the status area when reading ends, so that no stale progress stays
    /// on screen: after an entered line the cursor is on the row below it, after
    /// Ctrl-D at the end of the prompt's row.
    private func clearStatusArea(lineEntered: Bool) {
        guard statusRows > 0 else { return }
        let below = cursorRow() + (lineEntered ? 1 : 0)
        let up = statusRows + below
        var out = "\u{1B}[\(up)A\r\u{1B}[\(statusRows)M"
        if below > 0 { out += "\u{1B}[\(below)B" }
        writeAll(out + (lineEntered ? "" : "\r\n"))
        statusRows = 0
        statusLines = []
    }

    /// Rows the prompt and the whole line being edited take.
    private func lineRowCount() -> Int {
        guard let info = el_line(editLine)?.pointee, let buffer = info.buffer, let last = info.lastchar else {
            return 1
        }
        let all = String(decoding: UnsafeRawBufferPointer(start: buffer, count: last - buffer), as: UTF8.self)
        return TextLayout.rows(String(cString: promptBytes) + all + " ", columns: columns)
    }

    /// The row of the cursor within the prompt and the line being edited.
    private func cursorRow() -> Int {
        guard let info = el_line(editLine)?.pointee, let buffer = info.buffer, let cursor = info.cursor else {
            return 0
        }
        let before = String(decoding: UnsafeRawBufferPointer(start: buffer, count: cursor - buffer), as: UTF8.self)
        let used = TextLayout.width(String(cString: promptBytes)) + TextLayout.width(before)
        return columns > 0 ? used / columns : 0
    }

    private func setPromptBytes(_ prompt: String) {
        guard String(cString: promptBytes) != prompt else { return }
        free(promptBytes)
        promptBytes = strdup(prompt)
    }

    /// Ctrl-C: empty the line and start a fresh one below it.
    fileprivate func discardLine() -> UInt8 {
        if let info = el_line(editLine)?.pointee, let buffer = info.buffer, let cursor = info.cursor,
            let last = info.lastchar
        {
            let after = String(decoding: UnsafeRawBufferPointer(start: cursor, count: last - cursor), as: UTF8.self)
            let all = String(decoding: UnsafeRawBufferPointer(start: buffer, count: last - buffer), as: UTF8.self)
            _ = el_cursor(editLine, Int32(after.unicodeScalars.count))
            el_deletestr(editLine, Int32(all.unicodeScalars.count))
        }
        // The abandoned line stays on screen under the status area; the next redraw
        // clears from the top of that area, so count the line in with it.
        statusRows += cursorRow() + 1
        statusLines = []
        writeAll("^C\r\n")
        return UInt8(CC_REDISPLAY)
    }

    /// Ctrl-L: clear the visible screen, then draw the status area and the line.
    fileprivate func clearScreen() -> UInt8 {
        shared.withLock { $0.clearScreen = true }
        drawPending()
        return UInt8(CC_NORM)
    }

    /// Tab: complete the word before the cursor, listing the choices when several.
    fileprivate func complete() -> UInt8 {
        guard let completer, let info = el_line(editLine)?.pointee, let buffer = info.buffer,
            let cursor = info.cursor
        else { return UInt8(CC_ERROR) }
        let before = String(decoding: UnsafeRawBufferPointer(start: buffer, count: cursor - buffer), as: UTF8.self)
        let completion = completer(before)
        let words = completion.candidates.map { $0.word }
        guard let first = words.first else { return UInt8(CC_REFRESH_BEEP) }
        let typed = String(before.unicodeScalars.suffix(completion.replacing))
        var insertion = words.dropFirst().reduce(first) { $0.commonPrefix(with: $1) }
        if words.count == 1, completion.candidates[0].isFinal { insertion += " " }
        if insertion.count > typed.count || words.count == 1 {
            el_deletestr(editLine, Int32(completion.replacing))
            _ = el_insertstr(editLine, insertion)
        }
        guard words.count > 1 else { return UInt8(CC_REFRESH) }
        // The status area goes, the line as typed stays above the list, and the
        // status and prompt are drawn again below it: no frozen copy of the progress
        // is left in the scrollback.
        var out = Self.eraseRows(up: statusRows + cursorRow(), count: statusRows + lineRowCount())
        out += String(cString: promptBytes) + before + "\r\n"
        for line in Self.listing(completion.candidates, columns: columns) { out += line + "\r\n" }
        statusRows = 0
        statusLines = []
        writeAll(out)
        shared.withLock { $0.statusChanged = true }
        return UInt8(CC_REDISPLAY)
    }

    /// The candidates as a person reads them: with notes, one a line with the words
    /// right-aligned (numbers line up) and each line cut to the width; without, in
    /// columns as `ls` lays them out. At most 40 lines.
    static func listing(_ candidates: [Completion.Candidate], columns: Int, maxLines: Int = 40) -> [String] {
        let shown = candidates.map { $0.display ?? $0.word }
        var lines: [String]
        if candidates.contains(where: { $0.note != nil }) {
            let wordWidth = shown.map(TextLayout.width).max() ?? 0
            lines = zip(shown, candidates).map { word, candidate in
                let padded = String(repeating: " ", count: wordWidth - TextLayout.width(word)) + word
                let line = candidate.note.map { padded + "  " + $0 } ?? padded
                return TextLayout.truncate(line, toWidth: max(1, columns))
            }
        } else {
            let cell = (shown.map(TextLayout.width).max() ?? 0) + 2
            let perRow = max(1, columns / max(1, cell))
            let rowCount = (shown.count + perRow - 1) / perRow
            lines = (0..<rowCount).map { row in
                stride(from: row, to: shown.count, by: rowCount).map { TextLayout.pad(shown[$0], toWidth: cell) }
                    .joined().replacingOccurrences(of: " +$", with: "", options: .regularExpression)
            }
        }
        if lines.count > maxLines {
            let more = lines.count - maxLines
            lines = Array(lines.prefix(maxLines)) + ["(\(more) more)"]
        }
        return lines
    }

    private func writeAll(_ text: String) {
        fflush(stdout)
        TerminalOutput.write(text, to: STDOUT_FILENO)
    }

    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    // MARK: History

    /// Adds a line to the history (not when it is blank or starts with a space).
    public func addToHistory(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix(" ") else { return }
        // The same line twice in a row is kept once (H_SETUNIQUE).
        queue.sync { _ = feedsh_history_enter(history, line) }
    }

    /// The history, oldest first.
    public var historyEntries: [String] {
        queue.sync {
            var entries: [String] = []
            // H_LAST is the oldest entry; H_PREV walks towards newer ones.
            var entry = feedsh_history_step(history, H_LAST)
            while let current = entry {
                entries.append(String(cString: current))
                entry = feedsh_history_step(history, H_PREV)
            }
            return entries
        }
    }

    /// Writes the history file with mode 0600, creating its folder.
    public func saveHistory() {
        guard let historyFile else { return }
        queue.sync {
            let directory = historyFile.deletingLastPathComponent()
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let previous = umask(0o077)
            feedsh_history_save(history, historyFile.path)
            umask(previous)
            chmod(historyFile.path, 0o600)
        }
    }
}

private func editor(_ editLine: OpaquePointer?) -> LineEditor? {
    guard let editLine, let data = feedsh_el_get_clientdata(editLine) else { return nil }
    return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue()
}

private func promptCallback(_ editLine: OpaquePointer?) -> UnsafeMutablePointer<CChar>? {
    editor(editLine)?.promptBytes
}

private func readCallback(_ editLine: OpaquePointer?, _ out: UnsafeMutablePointer<wchar_t>?) -> Int32 {
    guard let out, let editor = editor(editLine) else { return -1 }
    return editor.readCharacter(out)
}

private func interruptCallback(_ editLine: OpaquePointer?, _ key: Int32) -> UInt8 {
    editor(editLine)?.discardLine() ?? UInt8(CC_ERROR)
}

private func clearCallback(_ editLine: OpaquePointer?, _ key: Int32) -> UInt8 {
    editor(editLine)?.clearScreen() ?? UInt8(CC_ERROR)
}

private func completeCallback(_ editLine: OpaquePointer?, _ key: Int32) -> UInt8 {
    editor(editLine)?.complete() ?? UInt8(CC_ERROR)
}
