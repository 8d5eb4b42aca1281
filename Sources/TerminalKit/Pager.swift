import Foundation
import PlainText
import Processes

/// Shows text taller than the screen through the user's pager, as psql does.
public enum Pager {
    /// `$PAGER`, else `less -FRX` (quit if it fits, keep colours, leave the text on
    /// screen). An empty `PAGER` means none.
    public static func command(environment: [String: String]) -> String? {
        guard let pager = environment["PAGER"] else { return "less -FRX" }
        return pager.trimmingCharacters(in: .whitespaces).isEmpty ? nil : pager
    }

    /// Whether `text` needs a pager on a screen of `rows` rows and `columns` columns
    /// (keeping a row for the prompt).
    public static func needed(_ text: String, rows: Int, columns: Int) -> Bool {
        var used = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            used += TextLayout.rows(String(line), columns: columns)
            if used >= rows { return true }
        }
        return false
    }

    /// Runs `command` through `/bin/sh` with `text` on its standard input and waits
    /// for it to exit. False when it could not be started (the caller prints the
    /// text itself). Blocks the calling thread: call it off Swift's cooperative pool.
    /// It runs in the terminal's foreground (``ForegroundProcess``).
    public static func run(_ command: String, text: String) -> Bool {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return false }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // The pager must not inherit the write end, or it never sees the end of its
        // input (its standard input is a copy of the read end, made without the flag).
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let process = ForegroundProcess.start(command, input: readEnd)
        close(readEnd)
        guard let process else {
            close(writeEnd)
            return false
        }
        // The pager may quit before reading everything (q): a broken pipe is fine.
        let previous = signal(SIGPIPE, SIG_IGN)
        TerminalOutput.write(text, to: writeEnd)
        close(writeEnd)
        signal(SIGPIPE, previous)
        return !process.waitBlocking().notFound
    }
}
