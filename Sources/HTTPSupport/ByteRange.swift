/// A single byte range from a `Range` request header, resolved against a length
/// (RFC 9110, section 14): what the fixture server and `feedsh serve` answer.
public enum ByteRangeRequest: Equatable, Sendable {
    /// No usable Range header: serve everything with 200.
    case none
    /// Serve these bytes with 206.
    case satisfiable(Range<Int>)
    /// Answer 416 with `Content-Range: bytes */length`.
    case unsatisfiable

    /// Parses `bytes=N-`, `bytes=N-M` and `bytes=-S`. Multiple ranges and other units
    /// are ignored (answered with the whole file), as RFC 9110 allows.
    public init(header: String?, length: Int) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .none
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: " ")
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .none
            return
        }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix >= 0 else {
                self = .none
                return
            }
            guard suffix > 0, length > 0 else {
                self = .unsatisfiable
                return
            }
            self = .satisfiable(max(0, length - suffix)..<length)
            return
        }
        guard let first = Int(parts[0]), first >= 0 else {
            self = .none
            return
        }
        var last = length - 1
        if !parts[1].isEmpty {
            guard let requested = Int(parts[1]), requested >= first else {
                self = .none
                return
            }
            last = min(requested, length - 1)
        }
        guard first < length else {
            self = .unsatisfiable
            return
        }
        self = .satisfiable(first..<(last + 1))
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return s
    }
}
