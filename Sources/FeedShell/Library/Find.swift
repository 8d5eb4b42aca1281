import Foundation
import Library
import PlainText
import ShellKit
import TerminalKit

extension Command {
    static let find = Command(
        CommandSpec(
            "find",
            summary: "search titles, show notes and transcripts of every subscription",
            details: """
                Searches the whole library (SQLite FTS5): episodes' titles and show
                notes, and every transcript fetched so far ('transcript N', or 'set
                transcripts on' for new episodes). Case and accents do not matter. Each
                word must occur; a quoted "two words" is a phrase, pod* a prefix, and
                OR, AND and NOT between words are operators. Hits are listed best
                first, numbered f1, f2..., with their P:E and, for a transcript, the time
                it was said: 'play f2' plays hit 2 from there (as 'play P:E --at TIME'
                would).
                """,
            arguments: [findWords.spec],
            flags: [findLimit.spec]
        )
    ) { arguments, context throws(ShellError) in
        let query: SearchQuery
        do throws(SearchQueryError) {
            query = try SearchQuery(arguments[findWords] ?? [])
        } catch {
            throw .usage(arguments.usage(FindText.problem(error)))
        }
        // No library yet: nothing to find, and none is made for asking.
        var hits: [SearchHit] = []
        if let library = try await context.session.libraryIfMade() {
            let limit = arguments[findLimit] ?? 20
            hits = try await libraryCall { () async throws(LibraryError) in
                try await library.search(query, limit: limit)
            }
        }
        await context.session.remember(hits)
        let color = context.console.color
        context.output(
            FindText.render(hits, color: color, width: context.console.width),
            json: .array(
                hits.map { hit in
                    .object([
                        "ref": .string(hit.ref), "podcast": .string(hit.podcast), "title": .string(hit.title),
                        "snippet": .string(FindText.snippet(hit, color: false)),
                        "at": hit.at.map { .double($0) } ?? .null,
                    ])
                }
            )
        )
        return .proceed
    }
}

/// `find`'s hits for a person: where each is (`P:E`, the time), the podcast and
/// episode, and the snippet under it with the words found in bold.
enum FindText {
    /// What is wrong with the words, naming the word.
    static func problem(_ error: SearchQueryError) -> String {
        switch error {
        case .prefixWithoutLetters(let word): "'\(SafeText.line(word))': a prefix needs letters before '*'"
        case .starInside(let word): "'\(SafeText.line(word))': '*' marks a prefix only at a word's end"
        case .emptyWord: "an empty word cannot be found"
        case .noWords: "no words to find"
        }
    }

    /// The snippet, sanitized, its matches in bold (`color`) or plain.
    static func snippet(_ hit: SearchHit, color: Bool) -> String {
        var out = ""
        var piece = ""
        for character in hit.snippet {
            guard character == SearchHit.markStart || character == SearchHit.markEnd else {
                piece.append(character)
                continue
            }
            out += SafeText.line(piece)
            piece = ""
            if color { out += character == SearchHit.markStart ? "\u{1B}[1m" : "\u{1B}[0m" }
        }
        return out + SafeText.line(piece)
    }

    static func render(_ hits: [SearchHit], color: Bool, width: Int?) -> String {
        guard !hits.isEmpty else { return "nothing found" }
        var lines: [String] = []
        for (index, hit) in hits.enumerated() {
            let at = hit.at.map { " at " + Formatting.duration(.seconds($0)) } ?? ""
            lines.append(
                "f\(index + 1)  \(hit.ref)\(at)  \(SafeText.line(hit.podcast)): \(SafeText.line(hit.title))"
            )
            let snippet = "    " + snippet(hit, color: color)
            lines.append(width.map { TextLayout.wrap(snippet, toWidth: $0) } ?? snippet)
        }
        lines.append("('play fN' plays hit N, from where its words were said)")
        return lines.joined(separator: "\n")
    }
}

extension Command {
    private static let findWords = CommandArgument<[String]>.words("WORDS")
    private static let findLimit = CommandOption<Int>("limit", range: 1...1000)
}
