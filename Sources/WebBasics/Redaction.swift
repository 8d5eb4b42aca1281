import Foundation

/// URL text as feedsh shows it, whether or not it parses.
public enum RedactedURLText {
    /// The text with any password replaced: `http://user:***@host`. The text
    /// may be what a parser refuses (no scheme, an unescaped `/`, `#`, `?`,
    /// `@` or space in the password), so the password is found by what surely
    /// holds: the user information runs from after `://` (or the start) to the
    /// last `@`, and the password from its first `:`.
    public static func redacted(_ text: String) -> String {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        guard let at = text[start...].lastIndex(of: "@"), let colon = text[start..<at].firstIndex(of: ":") else {
            return starringSecretQuery(text)
        }
        return starringSecretQuery(String(text[...colon]) + "***" + String(text[at...]))
    }

    /// The text with the value of every query parameter that carries a secret
    /// starred (`?token=***`): a private feed's address often holds its
    /// password there instead of before the `@`.
    public static func starringSecretQuery(_ text: String) -> String {
        guard let question = text.firstIndex(of: "?") else { return text }
        let end = text[question...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: question)..<end]
        var changed = false
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> Substring in
            guard let equals = part.firstIndex(of: "="), isSecret(part[..<equals]), part[equals...].count > 1 else {
                return part
            }
            changed = true
            return part[...equals] + "***"
        }
        guard changed else { return text }
        return String(text[...question]) + parts.joined(separator: "&") + String(text[end...])
    }

    /// Whether a query parameter of this name carries a secret: a token, a key,
    /// a password, a signature or a session (`token`, `api_key`, `auth`,
    /// `X-Amz-Signature`, `access-token`...).
    public static func isSecret(_ name: some StringProtocol) -> Bool {
        let plain = (String(name).removingPercentEncoding ?? String(name)).lowercased()
            .filter { $0 != "-" && $0 != "_" && $0 != "." }
        if ["key", "pass", "auth", "sig", "sid", "jwt", "session", "credential", "credentials"].contains(plain) {
            return true
        }
        return ["token", "secret", "password", "passwd", "apikey", "signature", "sessionid", "authorization"]
            .contains { plain.hasSuffix($0) }
    }
}

extension URL {
    /// Text a user or a server gave as a URL, as feedsh shows it: parsed and
    /// without its password, or, when it does not parse, with the password
    /// starred (``RedactedURLText``).
    public static func redacted(_ text: String) -> String {
        URL(string: text)?.redacted ?? RedactedURLText.redacted(text)
    }

    /// The URL as feedsh shows and serves it: without any password in it
    /// (`https://user@host/`), and with the values of query parameters that carry
    /// secrets starred (`?token=***`, ``RedactedURLText/starringSecretQuery(_:)``).
    public var redacted: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false),
            components.percentEncodedPassword != nil
        else { return RedactedURLText.starringSecretQuery(absoluteString) }
        components.percentEncodedPassword = nil
        return RedactedURLText.starringSecretQuery(components.url?.absoluteString ?? absoluteString)
    }
}
