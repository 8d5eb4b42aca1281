/// A span of listening as people read it.
public enum SpanText {
    /// `2h 05m` from an hour on; `12m 05s` below it, so that parts shown side
    /// by side add up to the whole they are part of; `45s`.
    public static func listened(_ seconds: Double) -> String {
        let whole = Int(max(0, min(seconds.isFinite ? seconds : 0, 1e12)).rounded())
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if whole >= 3600 { return "\(whole / 3600)h \(two(whole % 3600 / 60))m" }
        if whole >= 60 { return "\(whole / 60)m \(two(whole % 60))s" }
        return "\(whole)s"
    }
}
