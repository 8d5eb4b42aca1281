/// `P:E` as people write it, in the shell and to mcp: episode E, as `episodes`
/// numbers them (1 = newest), of subscription P. The one parser of the form; the
/// shell's selectors (`P:2-4`, `P:all`) read their `P:` with ``subscription(of:)``.
public struct ListedAddress: Hashable, Sendable, CustomStringConvertible {
    /// P: the subscription's number.
    public let podcast: Int64
    /// E: the episode's place in its subscription's list, from 1.
    public let number: Int

    public init(podcast: Int64, number: Int) {
        self.podcast = podcast
        self.number = number
    }

    /// `2:1`; nil for anything else (`2:`, `0:1`, `2:1-3`, ` 2:1`).
    public init?(_ text: some StringProtocol) {
        guard case .number(let podcast, let rest)? = Self.subscription(of: text), let number = Int(rest), number > 0,
            rest.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        self.init(podcast: podcast, number: number)
    }

    /// What stands before a word's first `:`.
    public enum Subscription: Equatable, Sendable {
        /// A subscription number, and the rest of the word after the colon.
        case number(Int64, rest: Substring)
        /// Text that is no subscription number (`x` of `x:3`, `0` of `0:1`).
        case malformed(Substring)
    }

    /// The `P:` of `word`; nil when it has no colon.
    public static func subscription(of word: some StringProtocol) -> Subscription? {
        let word = Substring(word)
        guard let colon = word.firstIndex(of: ":") else { return nil }
        let head = word[..<colon]
        guard head.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int64(head), number > 0 else {
            return .malformed(head)
        }
        return .number(number, rest: word[word.index(after: colon)...])
    }

    public var description: String { "\(podcast):\(number)" }
}
