import PlainText
import TerminalKit

/// Lays out one transcript paragraph, with the time of each line's first word
/// beside it (see ``Render/transcript(_:title:width:)``).
enum TranscriptLayout {
    /// The margin label of a time: `[12:34] `.
    static func label(_ seconds: Double) -> String { "[" + Formatting.duration(.seconds(seconds)) + "] " }

    /// The paragraph wrapped to `width`: the first line after `head`, the rest
    /// under the text, each led by its time when that differs from the time
    /// last shown. `time` gives when the words at a UTF-8 offset of `body` were said.
    static func wrapped(
        head: String,
        body: String,
        width: Int,
        timed: Bool,
        time: (Int) -> Double?
    ) -> [String] {
        let text = head + body
        let indent = timed ? min(head.prefix { $0 != "]" }.count + 2, width / 3) : 0
        let wrapped = TextLayout.wrap(text, toWidth: width).split(separator: "\n", omittingEmptySubsequences: false)
        var lines = [String(wrapped[0])]
        let rest = wrapped.dropFirst().joined(separator: " ")
        guard !rest.isEmpty else { return lines }
        let words = Words(body)
        // Characters other than spaces laid out so far, the head's not counted.
        var consumed = wrapped[0].count { $0 != " " } - head.count { $0 != " " }
        var shown = time(0).map(label)
        for line in TextLayout.wrap(rest, toWidth: width - indent).split(separator: "\n") {
            var margin = String(repeating: " ", count: indent)
            if let seconds = time(words.offset(ofCharacter: consumed)), label(seconds) != shown,
                TextLayout.width(label(seconds)) <= indent
            {
                shown = label(seconds)
                margin = TextLayout.pad(label(seconds), toWidth: indent)
            }
            lines.append(margin + line)
            consumed += line.count { $0 != " " }
        }
        return lines
    }

    /// The paragraph unwrapped: one line, broken where a cue starts 5 s or
    /// more after the time last shown, each new line led by that time.
    static func unwrapped(head: String, body: String, time: (Int) -> Double?) -> [String] {
        guard var last = time(0) else { return [head + body] }
        var leads = [head]
        var lines: [[Substring]] = [[]]
        var offset = 0
        for word in body.split(separator: " ", omittingEmptySubsequences: false) {
            if let seconds = time(offset), seconds - last >= 5, !lines[lines.count - 1].isEmpty {
                leads.append(label(seconds))
                lines.append([])
                last = seconds
            }
            lines[lines.count - 1].append(word)
            offset += word.utf8.count + 1
        }
        return zip(leads, lines).map { $0 + $1.joined(separator: " ") }
    }

    /// The words of a paragraph with where each starts, to map a count of
    /// laid-out characters back to a place in the text.
    struct Words {
        /// For each word: characters other than spaces before it, and its UTF-8 offset.
        private var starts: [(characters: Int, offset: Int)] = []

        init(_ text: String) {
            var characters = 0
            var offset = 0
            for word in text.split(separator: " ", omittingEmptySubsequences: false) {
                if !word.isEmpty { starts.append((characters, offset)) }
                characters += word.count
                offset += word.utf8.count + 1
            }
        }

        /// The UTF-8 offset of the word holding the `characters`-th character
        /// (spaces not counted).
        func offset(ofCharacter characters: Int) -> Int {
            starts.last { $0.characters <= characters }?.offset ?? 0
        }
    }
}
