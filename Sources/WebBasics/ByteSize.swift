/// An amount of bytes as curl writes it (`--max-filesize`, `--limit-rate`): a
/// number with an optional suffix k, M or G (1024-based, either case), such as
/// `500k`, `1.5M`, `4G` or `1048576`.
public enum ByteSize {
    /// The bytes `text` stands for; nil when it is not such an amount, is negative,
    /// or does not fit.
    public static func parse(_ text: String) -> Int64? {
        var number = Substring(text.trimmingWhitespace())
        var multiplier: Double = 1
        if let last = number.last, let shift = ["k": 10, "m": 20, "g": 30][last.lowercased()] {
            multiplier = Double(1 << shift)
            number = number.dropLast()
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(number), value.isFinite, value >= 0
        else { return nil }
        let bytes = (value * multiplier).rounded()
        guard bytes < 9.0e18 else { return nil }
        return Int64(bytes)
    }

    /// An amount of at least 1k, as `--max-filesize`, `max-size`, `--limit-rate`
    /// and `rate-limit` take it (for a rate, in bytes a second: `0` is no cap to
    /// curl; feedsh says so with no setting at all).
    public static func atLeast1k(_ text: String) -> Int64? {
        guard let bytes = parse(text), bytes >= 1 << 10 else { return nil }
        return bytes
    }

    /// The shortest exact spelling: `4G`, `500M`, `64k`, else the number of bytes.
    public static func format(_ bytes: Int64) -> String {
        for (suffix, shift) in [("G", 30), ("M", 20), ("k", 10)] where bytes >= 1 << shift {
            if bytes % (1 << shift) == 0 { return "\(bytes >> shift)\(suffix)" }
        }
        return String(bytes)
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> Substring {
        let trimmed = drop { $0.isWhitespace }
        return trimmed.prefix(trimmed.count - trimmed.reversed().prefix { $0.isWhitespace }.count)
    }
}
