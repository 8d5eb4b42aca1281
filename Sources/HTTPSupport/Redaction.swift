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
            return text
        }
        return String(text[...colon]) + "***" + String(text[at...])
    }
}

extension URL {
    /// Text a user or a server gave as a URL, as feedsh shows it: parsed and
    /// without its password, or, when it does not parse, with the password
    /// starred (``RedactedURLText``).
    public static func redacted(_ text: String) -> String {
        URL(string: text)?.redacted ?? RedactedURLText.redacted(text)
    }

    /// The URL as feedsh shows it: without any password in it (`https://user@host/`).
    public var redacted: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false),
            components.percentEncodedPassword != nil
        else { return absoluteString }
        components.percentEncodedPassword = nil
        return components.url?.absoluteString ?? absoluteString
    }
}
