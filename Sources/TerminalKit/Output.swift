import Foundation

/// Writing text to a file descriptor whole: retried after a signal and after a
/// partial write, and given up quietly on a closed pipe (nothing sensible is left
/// to do then).
public enum TerminalOutput {
    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
