import Foundation

/// The size of the terminal on a file descriptor, read when asked, so that it follows
/// resizes.
public enum TerminalSize {
    /// Columns: from the terminal, then `COLUMNS`, then 80.
    public static func columns(of fd: Int32 = STDOUT_FILENO) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = variable("COLUMNS") { return columns }
        return 80
    }

    /// Rows: from the terminal, then `LINES`, then 24.
    public static func rows(of fd: Int32 = STDOUT_FILENO) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 { return Int(size.ws_row) }
        if let rows = variable("LINES") { return rows }
        return 24
    }

    /// A positive number in the environment variable `name`: read by itself
    /// (ProcessInfo's `environment` builds a dictionary of them all at each read).
    private static func variable(_ name: String) -> Int? {
        guard let text = getenv(name), let value = Int(String(cString: text)), value > 0 else { return nil }
        return value
    }
}
