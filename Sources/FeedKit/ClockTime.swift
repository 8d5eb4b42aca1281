/// Times written as a clock reads: `95`, `12:34`, `1:02:03`, `12:34.5` (one place
/// for `play --at`, SRT and WebVTT cues and HTML transcripts' `<time>`).
public enum ClockTime {
    /// The seconds `text` stands for: `fields` colon-separated fields of ASCII
    /// digits, the last with an optional fraction (after a point, or with
    /// `decimalComma` a comma too, as SRT writes it), every field after the first
    /// under 60. Nil for anything else, or past ``ChapterList/latestStart`` (no
    /// episode is a week long, and a larger number must not reach arithmetic
    /// that traps).
    public static func seconds(_ text: String, fields: ClosedRange<Int>, decimalComma: Bool = false) -> Double? {
        let text = decimalComma ? text.replacingOccurrences(of: ",", with: ".") : text
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            let last = index == parts.count - 1
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (last && $0 == ".")) }),
                let value = Double(part), index == 0 || value < 60
            else { return nil }
            total = total * 60 + value
        }
        return total <= ChapterList.latestStart ? total : nil
    }
}
