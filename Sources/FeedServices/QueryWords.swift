import Foundation
import Library

/// What a front end reads from words a person gives: `find` words and dates.
package enum QueryWords {
    /// What is wrong with the words of a search, naming the word.
    package static func problem(_ error: SearchQueryError) -> String {
        switch error {
        case .prefixWithoutLetters(let word): "'\(word)': a prefix needs letters before '*'"
        case .starInside(let word): "'\(word)': '*' marks a prefix only at a word's end"
        case .emptyWord: "an empty word cannot be found"
        case .noWords: "no words to find"
        case .tooManyWords(let count, let max): "\(count) words are too many: a search takes at most \(max)"
        case .tooManyPrefixes(let max): "a search takes at most \(max) prefixes (words ending in '*')"
        case .prefixTooShort(let word, let min): "'\(word)': a prefix needs at least \(min) letters before '*'"
        }
    }

    /// `2026-11-01`: the start of that day, here; nil for anything else (no
    /// 31 November).
    package static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard parts.count == 3, text.count == 10, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
            return nil
        }
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
        guard let date = Calendar.current.date(from: components),
            Calendar.current.component(.day, from: date) == parts[2]
        else { return nil }
        return date
    }
}
