import Foundation

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
            used += TerminalText.rows(String(line), columns: columns)
            if used >= rows { return true }
        }
        return false
    }

    /// Runs `command` through `/bin/sh` with `text` on its standard input and waits
    /// for it to exit. False when it could not be started (the caller prints the
    /// text itself). Blocks the calling thread: call it off Swift's cooperative pool.
    ///
    /// Spawned with `posix_spawn` in feedsh's own process group, so that the pager
    /// is in the terminal's foreground and may set its mode (Foundation's `Process`
    /// starts a new session, where `less` cannot reach the terminal).
    public static func run(_ command: String, text: String) -> Bool {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return false }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, environ)
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            return false
        }
        // The pager may quit before reading everything (q): a broken pipe is fine.
        let previous = signal(SIGPIPE, SIG_IGN)
        TerminalOutput.write(text, to: writeEnd)
        close(writeEnd)
        signal(SIGPIPE, previous)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // sh says 127 when it cannot find the pager.
        let exited = status & 0x7f == 0
        return !(exited && (status >> 8) & 0xff == 127)
    }
}
