import Foundation

/// Byte counts the way people read them: `512 B`, `1.2 kB`, `48.1 MB` (decimal units).
public enum ByteCountText {
    /// A measured amount such as a rate: not-a-number counts as 0 and anything
    /// beyond `Int.max` as `Int.max`, so no reading can trap.
    public static func format(_ amount: Double) -> String {
        guard amount.isFinite, amount > 0 else { return format(0) }
        return format(amount >= 9.0e18 ? Int.max : Int(amount))
    }

    /// The unit changes where the shown number would reach 1000: 999,950 bytes
    /// is `1.0 MB`, never `1000.0 kB`.
    public static func format(_ count: Int) -> String {
        let value = Double(count)
        if count < 1000 { return "\(count) B" }
        if (value / 1e2).rounded() < 10_000 { return String(format: "%.1f kB", value / 1e3) }
        if (value / 1e5).rounded() < 10_000 { return String(format: "%.1f MB", value / 1e6) }
        return String(format: "%.2f GB", value / 1e9)
    }
}
