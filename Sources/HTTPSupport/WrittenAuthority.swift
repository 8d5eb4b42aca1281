/// The authority of a URL as it was written (`user:pass@host:port`), before any
/// parser mends it: where the userinfo is, to judge its `%`-escapes or hide its
/// password in what is shown.
public struct WrittenAuthority: Sendable {
    /// All of it, as a slice of the text it was found in.
    public let text: Substring
    /// `user:pass` (or `user`), when there is an `@`.
    public let userinfo: Substring?
    /// `host:port`.
    public let host: Substring

    /// The authority of the first URL in `text`: after its first `://`, up to a
    /// path, query, fragment or blank; nil without a `://`.
    public init?(in text: Substring) {
        guard let start = text.range(of: "://")?.upperBound else { return nil }
        self.text = text[start...].prefix { !$0.isWhitespace && $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = self.text.lastIndex(of: "@") {
            userinfo = self.text[..<at]
            host = self.text[self.text.index(after: at)...]
        } else {
            userinfo = nil
            host = self.text
        }
    }

    /// The password's part of the userinfo, `:pass`, when one is written.
    public var password: Substring? {
        guard let userinfo, let colon = userinfo.firstIndex(of: ":") else { return nil }
        return userinfo[colon...]
    }
}
