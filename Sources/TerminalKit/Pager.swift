import Foundation
import PlainText
import Subprocess

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
    /// for it to exit. False when it could not be started, or the shell found no
    /// such program (the caller prints the text itself).
    ///
    /// swift-subprocess starts it in feedsh's own process group, so it is in the
    /// terminal's foreground and reads keys, with every signal at its default and
    /// none of feedsh's descriptors. It runs in a task of its own: cancelling a run
    /// tears the child down, and a Ctrl-C the reader presses in the pager must not
    /// close it under them.
    public static func run(_ command: String, text: String) async -> Bool {
        await Task {
            // The pager may quit before reading everything (q): a broken pipe is fine.
            let previous = signal(SIGPIPE, SIG_IGN)
            defer { signal(SIGPIPE, previous) }
            do {
                let result = try await Subprocess.run(
                    .path("/bin/sh"),
                    arguments: ["-c", command],
                    input: .inputWriter,
                    output: .currentStandardOutput,
                    error: .currentStandardError
                ) { execution in
                    _ = try? await execution.standardInputWriter.write(text)
                    try? await execution.standardInputWriter.finish()
                }
                return result.terminationStatus != .exited(127)
            } catch {
                return false
            }
        }.value
    }
}
