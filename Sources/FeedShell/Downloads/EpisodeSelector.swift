/// Which episodes a command means: `3`, `2-4`, `1,3`, `1-2,5` or `all`.
enum EpisodeSelector {
    /// The 1-based numbers selected out of `count`, in order, without repeats.
    static func parse(_ text: String, count: Int) -> [Int]? {
        if text == "all" { return count > 0 ? Array(1...count) : nil }
        var numbers: [Int] = []
        var seen = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let low = Int(bounds[0]), let high = bounds.count == 2 ? Int(bounds[1]) : low,
                1 <= low, low <= high, high <= count
            else { return nil }
            for number in low...high where seen.insert(number).inserted { numbers.append(number) }
        }
        return numbers.isEmpty ? nil : numbers
    }
}
