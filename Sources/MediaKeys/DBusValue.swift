/// A D-Bus value of the kinds the MPRIS interfaces carry.
public enum DBusValue: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case int64(Int64)
    case uint32(UInt32)
    case double(Double)
    case strings([String])
    /// `a{sv}`: names to values, each sent as a variant.
    case dictionary([String: DBusValue])
    /// `v`: a value that carries its own type.
    indirect case variant(DBusValue)

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .bool: "b"
        case .int64: "x"
        case .uint32: "u"
        case .double: "d"
        case .strings: "as"
        case .dictionary: "a{sv}"
        case .variant: "v"
        }
    }

    /// The number a `d`, `x` or `u` holds (what a client sends for Rate or
    /// Volume may be any of them), looking inside a variant.
    var number: Double? {
        switch self {
        case .double(let value): value
        case .int64(let value): Double(value)
        case .uint32(let value): Double(value)
        case .variant(let inner): inner.number
        default: nil
        }
    }

    /// The text an `s` or `o` holds.
    var text: String? {
        switch self {
        case .string(let value), .objectPath(let value): value
        case .variant(let inner): inner.text
        default: nil
        }
    }
}
