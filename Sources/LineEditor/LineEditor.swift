@preconcurrency import CEditLine
import Dispatch
import Foundation
import Synchronization

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

    /// What Tab does with the text before the cursor.
    public struct Completion: Sendable, Equatable {
        /// One choice: the word to insert and, optionally, a description shown when
        /// there are several.
        public struct Candidate: Sendable, Equatable {
            public var word: String
            public var note: String?
            /// Whether a lone match is followed by a space (not for a directory,
            /// whose completion goes on).
            public var isFinal: Bool

            public init(_ word: String, note: String? = nil, isFinal: Bool = true) {
                self.word = word
                self.note = note
                self.isFinal = isFinal
            }
        }

        /// Characters (Unicode scalars) before the cursor to replace: the word being
        /// completed.
        public var replacing: Int
        public var candidates: [Candidate]

        public init(replacing: Int, candidates: [Candidate]) {
            self.replacing = replacing
            self.candidates = candidates
        }
    }

    private struct Shared {
        var messages: [String] = []
        var status: [String] = []
        var statusChanged = false
        var interrupt = false
        var stop = false
        var resized = false
        var prompt = "> "
        /// True while `el_gets` waits for a line: output then goes above the prompt.
        var reading = false
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
    public func readLine(prompt: String) async -> Input {
        shared.withLock {
            $0.prompt = prompt
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
        shared.withLock {
            $0.reading = true
            // Draw the status area with the first prompt.
            $0.statusChanged = !$0.status.isEmpty
        }
        defer { shared.withLock { $0.reading = false } }
        var count: Int32 = 0
        while true {
            let line = el_gets(editLine, &count)
            if shared.withLock({ $0.stop }) { return .stopped }
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
            if state.reading { state.messages += lines }
            return state.reading
        }
        if queued {
            wake()
        } else {
            FileHandle.standardError.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        }
    }

    /// Replaces the status area drawn above the prompt (empty: none).
    public func setStatus(_ lines: [String]) {
        shared.withLock {
            guard $0.status != lines else { return }
            $0.status = lines
            $0.statusChanged = true
        }
        wake()
    }

    /// Changes the prompt of the line being read.
    public func setPrompt(_ prompt: String) {
        shared.withLock {
            guard $0.prompt != prompt else { return }
            $0.prompt = prompt
            $0.statusChanged = true
        }
        wake()
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
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: Editor queue

    /// libedit's read function: the next character typed, drawing queued output and
    /// handling wake-ups while it waits.
    fileprivate func readCharacter(_ out: UnsafeMutablePointer<wchar_t>) -> Int32 {
        while true {
            let (interrupted, stopped) = shared.withLock { state in
                defer { state.interrupt = false }
                return (state.interrupt, state.stop)
            }
            if stopped { return 0 }
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
        let (messages, status, changed, resized, prompt) = shared.withLock { state in
            defer {
                state.messages = []
                state.statusChanged = false
                state.resized = false
            }
            return (state.messages, state.status, state.statusChanged, state.resized, state.prompt)
        }
        if resized {
            el_resize(editLine)
            columns = Self.terminalColumns()
        }
        guard !messages.isEmpty || changed || resized else { return }
        setPromptBytes(prompt)
        var out = "\r"
        let rows = statusRows + cursorRow()
        if rows > 0 { out += "\u{1B}[\(rows)A" }
        out += "\u{1B}[J"
        for line in messages { out += line + "\r\n" }
        for line in status { out += line + "\r\n" }
        statusRows = status.count
        writeAll(out)
        feedsh_el_refresh(editLine)
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
    }

    /// The row of the cursor within the prompt and the line being edited.
    private func cursorRow() -> Int {
        guard let info = el_line(editLine)?.pointee, let buffer = info.buffer, let cursor = info.cursor else {
            return 0
        }
        let before = String(decoding: UnsafeRawBufferPointer(start: buffer, count: cursor - buffer), as: UTF8.self)
        let used = String(cString: promptBytes).count + before.count
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
        writeAll("^C\r\n")
        return UInt8(CC_REDISPLAY)
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
        var lines = "\r\n"
        for candidate in completion.candidates.prefix(40) {
            lines += candidate.word + (candidate.note.map { "  " + $0 } ?? "") + "\r\n"
        }
        if completion.candidates.count > 40 { lines += "(\(completion.candidates.count - 40) more)\r\n" }
        statusRows = 0
        writeAll(lines)
        shared.withLock { $0.statusChanged = true }
        return UInt8(CC_REDISPLAY)
    }

    private func writeAll(_ text: String) {
        fflush(stdout)
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
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

private func completeCallback(_ editLine: OpaquePointer?, _ key: Int32) -> UInt8 {
    editor(editLine)?.complete() ?? UInt8(CC_ERROR)
}
