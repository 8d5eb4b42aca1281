import LineEditor

extension Shell {
    /// Reads commands at a prompt until `quit` or Ctrl-D; failures are reported and
    /// the shell goes on. History is saved on the way out.
    public func runInteractive(editor: LineEditor) async -> ExitStatus {
        while let line = editor.readLine(prompt: await prompt()) {
            editor.addToHistory(line)
            if await runInteractive(line: line) == .quit { break }
        }
        editor.saveHistory()
        return .success
    }
}
