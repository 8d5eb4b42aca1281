import Foundation

/// Byte counts the way people read them: `512 B`, `1.2 kB`, `48.1 MB` (decimal units).
public enum ByteCountText {
    /// A measured amount such as a rate: not-a-number counts as 0 and anything
    /// beyond `Int.max` as `Int.max`, so no reading can trap.
    public static func format(_ amount: Double) -> String {
        guard amount.isFinite, amount > 0 else { return format(0) }
        return format(amount >= 9.0e18 ? Int.max : Int(amount))
    }

    public static func format(_ count: Int) -> String {
        let value = Double(count)
        switch count {
        case ..<1000: return "\(count) B"
        case ..<1_000_000: return String(format: "%.1f kB", value / 1e3)
        case ..<1_000_000_000: return String(format: "%.1f MB", value / 1e6)
        default: return String(format: "%.2f GB", value / 1e9)
        }
    }
}
