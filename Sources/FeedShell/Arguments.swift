/// The words after a command's name, consumed as options and positionals.
///
/// Options are `--name VALUE` or `--name=VALUE`; `--` ends them. Anything left over
/// when ``finish()`` is called is a usage error naming the word.
public struct Arguments: Sendable {
    private var words: [String]
    /// The command's synopsis, for usage errors: `show N (1-5)`.
    public var synopsis: String

    public init(_ words: [String], synopsis: String) {
        self.words = words
        self.synopsis = synopsis
    }

    /// True when no words are left.
    public var isEmpty: Bool { words.isEmpty }

    /// Removes `--name VALUE` / `--name=VALUE` and returns the value.
    public mutating func option(_ name: String) throws(ShellError) -> String? {
        let flag = "--\(name)"
        for (index, word) in words.enumerated() {
            if word == "--" { return nil }
            if word == flag {
                guard index + 1 < words.count else {
                    throw .usage("\(flag) needs a value", synopsis: synopsis)
                }
                let value = words[index + 1]
                words.removeSubrange(index...(index + 1))
                return value
            }
            if word.hasPrefix(flag + "=") {
                words.remove(at: index)
                return String(word.dropFirst(flag.count + 1))
            }
        }
        return nil
    }

    /// Removes an integer option that must lie in `range`.
    public mutating func intOption(_ name: String, in range: ClosedRange<Int>) throws(ShellError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .usage("--\(name) takes a number from \(range.lowerBound) to \(range.upperBound)", synopsis: synopsis)
        }
        return value
    }

    /// Removes `--name` and says whether it was there.
    public mutating func flag(_ name: String) -> Bool {
        guard let index = words.prefix(while: { $0 != "--" }).firstIndex(of: "--\(name)") else { return false }
        words.remove(at: index)
        return true
    }

    /// Removes and returns the next word that is not an option.
    public mutating func positional() throws(ShellError) -> String? {
        guard let index = words.firstIndex(where: { !$0.hasPrefix("--") || $0 == "--" }) else {
            if let option = words.first { throw .usage("unknown option '\(option)'", synopsis: synopsis) }
            return nil
        }
        if words[index] == "--" {
            words.remove(at: index)
            return words.isEmpty ? nil : words.removeFirst()
        }
        if index > 0 { throw .usage("unknown option '\(words[0])'", synopsis: synopsis) }
        return words.remove(at: index)
    }

    /// The remaining words joined by spaces, for a search typed without quotes
    /// (`search song exploder`); a usage error when there are none.
    public mutating func text() throws(ShellError) -> String {
        var rest: [String] = []
        while let word = try positional() { rest.append(word) }
        let text = rest.joined(separator: " ")
        guard !text.isEmpty else { throw .usage(synopsis: synopsis) }
        return text
    }

    /// Fails on anything not consumed.
    public func finish() throws(ShellError) {
        guard let word = words.first else { return }
        let problem = word.hasPrefix("--") ? "unknown option '\(word)'" : "unexpected argument '\(word)'"
        throw .usage(problem, synopsis: synopsis)
    }
}
