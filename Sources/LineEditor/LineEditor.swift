@preconcurrency import CEditLine
import Foundation

/// A line editor on libedit: a prompt, Emacs-style editing and history.
///
/// `readLine` blocks the calling thread until a line is entered; the interactive
/// shell calls it from its own loop. Not thread-safe: use one editor from one task.
public final class LineEditor {
    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private let historyFile: URL?
    /// The prompt libedit asks for through `promptCallback`; kept alive here.
    fileprivate var promptBytes: UnsafeMutablePointer<CChar>

    /// Creates an editor on the process's terminal, loading history from
    /// `historyFile` if given. Returns nil when libedit cannot start.
    public init?(programName: String, historyFile: URL? = nil, historySize: Int = 1000) {
        setlocale(LC_CTYPE, "")
        guard let editLine = el_init(programName, stdin, stdout, stderr) else { return nil }
        guard let history = history_init() else {
            el_end(editLine)
            return nil
        }
        self.editLine = editLine
        self.history = history
        self.historyFile = historyFile
        self.promptBytes = strdup("> ")
        feedsh_history_setsize(history, Int32(historySize))
        feedsh_history_setunique(history, 1)
        feedsh_el_set_hist(editLine, history)
        feedsh_el_set_editor(editLine, "emacs")
        feedsh_el_set_signal(editLine, 1)
        feedsh_el_set_clientdata(editLine, Unmanaged.passUnretained(self).toOpaque())
        feedsh_el_set_prompt(editLine, promptCallback)
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
    }

    /// Shows `prompt` and returns the line typed, without its newline; nil at end of
    /// input (Ctrl-D on an empty line).
    public func readLine(prompt: String) -> String? {
        free(promptBytes)
        promptBytes = strdup(prompt)
        var count: Int32 = 0
        while true {
            guard let line = el_gets(editLine, &count) else {
                if count == -1, errno == EINTR { continue }
                return nil
            }
            var text = String(cString: line)
            if text.hasSuffix("\n") { text.removeLast() }
            return text
        }
    }

    /// Adds a line to the history (not when it is blank or starts with a space).
    public func addToHistory(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix(" ") else { return }
        // The same line twice in a row is kept once (H_SETUNIQUE).
        feedsh_history_enter(history, line)
    }

    /// The history, oldest first.
    public var historyEntries: [String] {
        var entries: [String] = []
        // H_LAST is the oldest entry; H_PREV walks towards newer ones.
        var entry = feedsh_history_step(history, H_LAST)
        while let current = entry {
            entries.append(String(cString: current))
            entry = feedsh_history_step(history, H_PREV)
        }
        return entries
    }

    /// Writes the history file with mode 0600, creating its folder.
    public func saveHistory() {
        guard let historyFile else { return }
        let directory = historyFile.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let previous = umask(0o077)
        feedsh_history_save(history, historyFile.path)
        umask(previous)
        chmod(historyFile.path, 0o600)
    }
}

private func promptCallback(_ editLine: OpaquePointer?) -> UnsafeMutablePointer<CChar>? {
    guard let editLine, let data = feedsh_el_get_clientdata(editLine) else { return nil }
    return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue().promptBytes
}
