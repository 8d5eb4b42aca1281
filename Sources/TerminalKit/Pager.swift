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
    public static func run(_ command: String, text: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let input = Pipe()
        process.standardInput = input
        do {
            try process.run()
        } catch {
            return false
        }
        // The pager may quit before reading everything (q): a broken pipe is fine.
        let previous = signal(SIGPIPE, SIG_IGN)
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(input.fileHandleForWriting.fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    break
                }
                offset += written
            }
        }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        signal(SIGPIPE, previous)
        // sh says 127 when it cannot find the pager.
        return process.terminationReason == .exit && process.terminationStatus != 127
    }
}
