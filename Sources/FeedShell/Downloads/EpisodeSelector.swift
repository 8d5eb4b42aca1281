/// Which episodes a command means: `3`, `2-4`, `1,3`, `1-2,5` or `all`.
enum EpisodeSelector {
    /// Why a selector selects nothing, naming the part that is wrong.
    enum Problem: Error, Equatable {
        /// A number (or a range's end) past the list: `9` of 1-5.
        case outOfRange(String)
        /// A part that is no number or range: `x`, `3-`, `4-2`.
        case malformed(String)
        /// An empty list (`all` of nothing, or nothing at all).
        case empty

        /// `no episode 9 (1-5)`, with `noun` for what is numbered; for a selector of
        /// subscription P, `prefix` is `P:` and `owner` its title: `no episode 2:9
        /// (1-5 in Title)`.
        func description(noun: String, count: Int, prefix: String = "", owner: String? = nil) -> String {
            let within = owner.map { " in \($0)" } ?? ""
            let range = count > 0 ? " (1-\(count)\(within))" : " (there are none\(within))"
            return switch self {
            case .outOfRange(let part): "no \(noun) \(prefix)\(part)\(range)"
            case .malformed(let part):
                "'\(part)' is not \("aeiou".contains(noun.prefix(1)) ? "an" : "a") \(noun) number or range\(range)"
            case .empty: "no \(noun) selected\(range)"
            }
        }
    }

    /// The 1-based numbers selected out of `count`, in order, without repeats.
    static func parse(_ text: String, count: Int) -> [Int]? {
        try? select(text, count: count).get()
    }

    /// ``parse(_:count:)``, or the first part that is wrong.
    static func select(_ text: String, count: Int) -> Result<[Int], Problem> {
        if text == "all" { return count > 0 ? .success(Array(1...count)) : .failure(.empty) }
        var numbers: [Int] = []
        var seen = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let low = Int(bounds[0]), let high = bounds.count == 2 ? Int(bounds[1]) : low, 1 <= low,
                low <= high
            else { return .failure(.malformed(String(part))) }
            guard high <= count else { return .failure(.outOfRange(low > count ? String(low) : String(high))) }
            for number in low...high where seen.insert(number).inserted { numbers.append(number) }
        }
        return numbers.isEmpty ? .failure(.empty) : .success(numbers)
    }
}
