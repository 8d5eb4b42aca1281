import Dispatch
import Foundation
import HTTPSupport
import Library
import LineEditor
import ShellKit
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
        watcher.on(SIGINT) { [terminal, console] in
            if editor.isAskingQuestion {
                // Withdraws the question, unanswered (the command asking it goes on
                // with that: `quit` stays).
                editor.stop()
            } else if let command = terminal.command {
                // The terminal echoed ^C: end its line, unless the spinner's erasing
                // took it or the live progress of `wait` is about to.
                let spinner = console.activity.stop()
                if !editor.showsStatusWhileBusy { console.writeError(spinner ? "^C\n" : "\n") }
                command.cancel()
            } else {
                editor.interrupt()
            }
        }
        watcher.on(SIGWINCH) { editor.resized() }
        watcher.on(SIGTSTP) { editor.suspend() }
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
            let line: String
            switch await editor.readLine(prompt: await prompt()) {
            case .line(let typed):
                if let kept = Self.forHistory(typed) { editor.addToHistory(kept) }
                line = typed
            case .endOfInput:
                // Ctrl-D is `quit`: it asks the same question when downloads run.
                console.print("")
                line = "quit"
            case .stopped:
                return Self.status(for: stopSignal.value ?? SIGTERM)
            }
            let command = Task { await self.runInteractive(line: line) }
            terminal.command = command
            let outcome = await command.value
            terminal.command = nil
            if let signal = stopSignal.value { return Self.status(for: signal) }
            if outcome == .quit { return .success }
        }
    }

    private static func status(for signal: Int32) -> ExitStatus {
        signal == SIGHUP ? .hangUp : .terminated
    }
}

extension Shell {
    /// What of a typed line goes into the history file: passwords in URLs
    /// (`https://alice:secret@host`) become `https://alice@host`, and a line that
    /// names a secret setting anywhere is not kept at all. The name is looked for
    /// in the line as typed, not in its words as one parse reads them: however
    /// the secret is set (after `;`, quoted, with extra blanks, in a line that does
    /// not parse), the line stays out, and losing a harmless line is cheaper than
    /// keeping a secret.
    static func forHistory(_ line: String) -> String? {
        let lowered = line.lowercased()
        if Setting.allCases.contains(where: { $0.isSecret && lowered.contains($0.rawValue) }) { return nil }
        var kept = ""
        var rest = Substring(line)
        while let password = writtenPassword(in: rest) {
            kept += rest[..<password.lowerBound]
            rest = rest[password.upperBound...]
        }
        return kept + rest
    }

    /// The password of the first URL in `text`, `:secret`, from the colon after
    /// the user name to the last `@` of the URL's word: whatever stands there,
    /// valid URL or not (a `/`, `#` or `@` in the password, or a blank when the
    /// URL is quoted: its word then runs to the closing quote). The user name
    /// holds no `/`, `?`, `#` or blank (else what follows `://` is a host and a
    /// path); `host:8080/…` is a port.
    private static func writtenPassword(in text: Substring) -> Range<Substring.Index>? {
        var rest = text
        while let scheme = rest.range(of: "://") {
            let after = rest[scheme.upperBound...]
            let schemeStart = rest[..<scheme.lowerBound].lastIndex { !$0.isLetter } ?? rest.startIndex
            let quote = rest[schemeStart...].first.flatMap { "'\"".contains($0) ? $0 : nil }
            let next = after.range(of: "://")?.lowerBound ?? after.endIndex
            let end =
                quote.flatMap { after[..<next].firstIndex(of: $0) }
                ?? after[..<next].firstIndex { $0.isWhitespace || $0 == ";" } ?? next
            let span = after[..<end]
            rest = after
            guard let colon = span.firstIndex(of: ":"),
                !span[..<colon].contains(where: { "/?#@".contains($0) || $0.isWhitespace }),
                let at = span[colon...].lastIndex(of: "@")
            else { continue }
            let port = span[span.index(after: colon)...].prefix(while: \.isASCIIDigitForHistory)
            let afterPort = span[port.endIndex...].first
            if !port.isEmpty, afterPort == nil || "/?#".contains(afterPort!) || afterPort!.isWhitespace {
                continue
            }
            return colon..<at
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigitForHistory: Bool { isASCII && isWholeNumber }
}
