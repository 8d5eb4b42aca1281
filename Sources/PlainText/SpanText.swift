/// A span of listening as people read it.
public enum SpanText {
    /// `2h 05m`, `12m`, `45s`.
    public static func listened(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds.isFinite ? seconds : 0).rounded())
        if whole >= 3600 {
            let minutes = whole % 3600 / 60
            return "\(whole / 3600)h \(minutes < 10 ? "0" : "")\(minutes)m"
        }
        if whole >= 60 { return "\(whole / 60)m" }
        return "\(whole)s"
    }
}
