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

/// What Tab does with the text before the cursor: the word to replace and the
/// choices. ShellKit's completer makes it; the line editor shows and inserts it.
public struct Completion: Sendable, Equatable {
    /// One choice.
    public struct Candidate: Sendable, Equatable {
        /// What replaces the word being completed.
        public var word: String
        /// How it is listed, when not as `word` (a selector lists `3`, inserts `1,3`).
        public var display: String?
        /// A description shown when there are several.
        public var note: String?
        /// Whether a lone match is followed by a space (not for a directory, whose
        /// completion goes on).
        public var isFinal: Bool

        public init(_ word: String, display: String? = nil, note: String? = nil, isFinal: Bool = true) {
            self.word = word
            self.display = display
            self.note = note
            self.isFinal = isFinal
        }
    }

    /// Unicode scalars before the cursor to replace: the word being completed.
    public var replacing: Int
    public var candidates: [Candidate]

    public init(replacing: Int, candidates: [Candidate]) {
        self.replacing = replacing
        self.candidates = candidates
    }
}
