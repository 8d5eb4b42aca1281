import PlainText

/// Which items a command acts on, parsed once from its word: `3`, `2-4`, `1,3`,
/// `all` of the loaded list; `P:3`, `P:2-4`, `P:all` of subscription P; `t2`,
/// `t1-3`, `tall` of the songs; `new` for the library's new episodes; `queue` for
/// the play queue; `f2` for a hit of the last `find`; `b2` for a bookmark.
///
/// What the word can be is declared with the argument (``Forms``): a word of a
/// form the command does not take is a usage error naming it, as is a part that
/// is no number or range. Numbers past the list are found by ``numbers(count:)``,
/// once the list is known.
public struct Selector: Sendable, Equatable, CustomStringConvertible {
    /// What list the numbers are of.
    public enum Scope: Sendable, Equatable {
        /// The loaded podcast's episodes.
        case loaded
        /// Subscription P's episodes (`P:` before the numbers).
        case subscription(Int64)
        /// The songs of the last `tracks` list (`t` before the numbers).
        case songs
        /// The library's new episodes (`new`).
        case new
        /// The play queue (`queue`), in its order.
        case queue
        /// The hits of the last `find` (`f` before the numbers).
        case hits
        /// The library's bookmarks, as `bookmarks` numbers them (`b` before the
        /// numbers).
        case bookmarks
        /// The episodes a smart playlist holds, in its order (`playlist NAME`,
        /// two words).
        case playlist(String)
    }

    /// Which of a list's items.
    public enum Items: Sendable, Equatable {
        case all
        /// Ranges in the order given (a single number is a range of one).
        case ranges([ClosedRange<Int>])
    }

    /// The forms an argument takes.
    public struct Forms: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// More than one item: ranges, lists and `all`.
        public static let several = Forms(rawValue: 1 << 0)
        /// `P:E` and its ranges.
        public static let subscription = Forms(rawValue: 1 << 1)
        /// `tN` and its ranges.
        public static let songs = Forms(rawValue: 1 << 2)
        /// `new`.
        public static let new = Forms(rawValue: 1 << 3)
        /// `queue`.
        public static let queue = Forms(rawValue: 1 << 4)
        /// `fN`: a hit of the last `find`.
        public static let hits = Forms(rawValue: 1 << 5)
        /// `bN`: a bookmark.
        public static let bookmarks = Forms(rawValue: 1 << 6)
        /// `playlist NAME`: a smart playlist's episodes (the one form of two words).
        public static let playlist = Forms(rawValue: 1 << 7)

        /// What the download commands take.
        public static let downloads: Forms = [.several, .subscription, .songs, .new]
        /// One episode, of the loaded podcast or of a subscription.
        public static let oneEpisode: Forms = [.subscription]
    }

    public let scope: Scope
    public let items: Items
    /// The word as typed (sanitized when shown).
    public let text: String

    public var description: String { text }

    /// Whether it names more than one item (ranges, lists, `all`, `new`): a
    /// command then summarises what it did.
    public var isSeveral: Bool {
        switch (scope, items) {
        case (.new, _), (.queue, _), (.playlist, _), (_, .all): true
        case (_, .ranges(let ranges)): ranges.count > 1 || ranges.contains { $0.count > 1 }
        }
    }

    /// Whether it is `all`, `P:all` or `tall`.
    public var isAll: Bool {
        switch scope {
        case .new, .queue, .playlist: false
        default: items == .all
        }
    }

    /// `playlist NAME`: the selector of a smart playlist's episodes.
    public static func playlist(_ name: String) -> Selector {
        Selector(scope: .playlist(name), items: .all, text: "playlist " + name)
    }

    /// Parses `word` as one of `forms`; the message of a usage error when it is not.
    public static func parse(_ word: String, forms: Forms, noun: String = "episode") -> Result<Selector, Problem> {
        if word == "new" {
            guard forms.contains(.new) else { return .failure(.formNotTaken(word)) }
            return .success(Selector(scope: .new, items: .all, text: word))
        }
        if word == "queue" {
            guard forms.contains(.queue) else { return .failure(.formNotTaken(word)) }
            return .success(Selector(scope: .queue, items: .all, text: word))
        }
        var scope = Scope.loaded
        var rest = Substring(word)
        var noun = noun
        if let subscription = ListedAddress.subscription(of: word) {
            guard forms.contains(.subscription) else { return .failure(.formNotTaken(word)) }
            switch subscription {
            case .malformed(let head): return .failure(.badSubscription(String(head)))
            case .number(let number, let after):
                scope = .subscription(number)
                rest = after
            }
        } else if word.hasPrefix("t") {
            guard forms.contains(.songs) else { return .failure(.formNotTaken(word)) }
            scope = .songs
            rest = word.dropFirst()
            noun = "song"
        } else if word.hasPrefix("f") {
            guard forms.contains(.hits) else { return .failure(.formNotTaken(word)) }
            scope = .hits
            rest = word.dropFirst()
            noun = "hit"
        } else if word.hasPrefix("b") {
            guard forms.contains(.bookmarks) else { return .failure(.formNotTaken(word)) }
            scope = .bookmarks
            rest = word.dropFirst()
            noun = "bookmark"
        }
        guard let items = parseItems(rest) else {
            let bad = rest.split(separator: ",", omittingEmptySubsequences: false).first { parseItems($0) == nil }
            return .failure(.malformed(String(bad ?? rest), noun: noun))
        }
        let selector = Selector(scope: scope, items: items, text: word)
        guard forms.contains(.several) || !selector.isSeveral else { return .failure(.formNotTaken(word)) }
        return .success(selector)
    }

    /// `all`, or comma-separated numbers and ranges; nil when a part is neither.
    private static func parseItems(_ text: Substring) -> Items? {
        if text == "all" { return .all }
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let low = Int(bounds[0]), let high = bounds.count == 2 ? Int(bounds[1]) : low, 1 <= low,
                low <= high
            else { return nil }
            ranges.append(low...high)
        }
        return .ranges(ranges)
    }

    /// The 1-based numbers selected out of `count`, in order and without repeats,
    /// or the first number past the list.
    public func numbers(count: Int) -> Result<[Int], Problem> {
        switch items {
        case .all:
            return count > 0 ? .success(Array(1...count)) : .failure(.empty)
        case .ranges(let ranges):
            var numbers: [Int] = []
            var seen = Set<Int>()
            for range in ranges {
                guard range.upperBound <= count else {
                    let past = range.lowerBound > count ? range.lowerBound : range.upperBound
                    return .failure(.outOfRange(String(past)))
                }
                for number in range where seen.insert(number).inserted { numbers.append(number) }
            }
            return numbers.isEmpty ? .failure(.empty) : .success(numbers)
        }
    }

    /// Why a word selects nothing, naming the part that is wrong.
    public enum Problem: Error, Sendable, Equatable {
        /// A number (or a range's end) past the list: `9` of 1-5.
        case outOfRange(String)
        /// A part that is no number or range: `x`, `3-`, `4-2`.
        case malformed(String, noun: String)
        /// A subscription number that is none: `x:3`.
        case badSubscription(String)
        /// A form the command does not take (`play 1-3`, `show new`).
        case formNotTaken(String)
        /// An empty list (`all` of nothing).
        case empty

        /// `no episode 9 (1-5)`, with `noun` for what is numbered and the list's
        /// `count`; for subscription P, `prefix` is `P:` and `owner` its title:
        /// `no episode 2:9 (1-5 in Title)`.
        public func description(noun: String, count: Int?, prefix: String = "", owner: String? = nil) -> String {
            let within = owner.map { " in \($0)" } ?? ""
            let range =
                count.map {
                    $0 > 1 ? " (1-\($0)\(within))" : $0 == 1 ? " (there is 1\(within))" : " (there are none\(within))"
                } ?? ""
            return switch self {
            case .outOfRange(let part): "no \(noun) \(prefix)\(part)\(range)"
            case .malformed(let part, let noun):
                "'\(SafeText.line(part))' is not \("aeiou".contains(noun.prefix(1)) ? "an" : "a") \(noun) "
                    + "number or range\(range)"
            case .badSubscription(let part):
                "'\(SafeText.line(part))' is not a subscription number ('podcasts' lists them)"
            case .formNotTaken(let word): "'\(SafeText.line(word))' is not a selector this command takes"
            case .empty: "no \(noun) selected\(range)"
            }
        }
    }
}
