import Foundation

/// Reads a password from the terminal without echoing it, as `sudo` and `ssh` do:
/// the prompt goes to `/dev/tty`, echo is turned off for the one line and turned
/// back on when it is read. The read blocks until Enter (or Ctrl-D): an empty line
/// is how to give up.
public enum SecretPrompt {
    /// The line typed after `prompt`, without its newline; nil when there is no
    /// terminal to ask (a script, a pipe) or the input ended. Empty when the
    /// person gave up.
    public static func read(_ prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        quiet.c_lflag |= tcflag_t(ICANON)
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { return nil }
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Foundation.read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}
