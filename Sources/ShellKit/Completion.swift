/// What Tab does with the text before the cursor: the word to replace and the
/// choices. ``Completer`` makes it; the line editor shows and inserts it.
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
