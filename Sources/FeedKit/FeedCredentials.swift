import Foundation
import HTTPSupport

/// A user name and password for a private feed (Patreon, Supercast, a
/// self-hosted one), sent as HTTP Basic authentication.
///
/// They go, pre-emptively, only to the feed's own origin (scheme, host and port):
/// the feed and the enclosures it serves there. A redirect to another origin goes
/// without them, as curl does since CVE-2018-1000007. They are kept apart from the
/// URL and never shown (``description`` names the user only).
public struct FeedCredentials: Sendable, Hashable, CustomStringConvertible {
    public let user: String
    public let password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `Basic base64(user:password)`.
    public var authorization: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    public var description: String { "user \(user)" }

    /// The credentials of a URL's userinfo (`https://user:pass@host/feed`),
    /// percent-decoded, and the URL without them; nil credentials when it has none.
    /// A userinfo whose `%`-escapes are broken in the URL as `written` (Foundation
    /// mends a stray `%` into `%25` when it parses) is an error naming the host.
    public static func split(
        _ url: URL,
        written: String? = nil
    ) throws(FeedCredentialsError) -> (url: URL, credentials: FeedCredentials?) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.percentEncodedUser != nil || components.percentEncodedPassword != nil
        else { return (url, nil) }
        let rawUser = components.percentEncodedUser ?? ""
        let rawPassword = components.percentEncodedPassword ?? ""
        guard Self.escapesAreWhole(written ?? url.absoluteString), let user = rawUser.removingPercentEncoding,
            let password = rawPassword.removingPercentEncoding
        else {
            throw FeedCredentialsError(
                "the user name or password in the URL for \(url.host ?? "?") has a broken %-escape"
            )
        }
        guard !user.isEmpty else {
            throw FeedCredentialsError("the URL for \(url.host ?? "?") has a password but no user name")
        }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        guard let bare = components.url else { return (url, nil) }
        return (bare, FeedCredentials(user: user, password: password))
    }

    /// Whether every `%` in the userinfo of `text` (between `://` and `@`) starts
    /// two hex digits.
    private static func escapesAreWhole(_ text: String) -> Bool {
        guard let written = WrittenAuthority(in: Substring(text))?.userinfo else { return true }
        let userinfo = Array(written.utf8)
        func isHex(_ byte: UInt8) -> Bool {
            (48...57).contains(byte) || (97...102).contains(byte | 0x20)
        }
        for (index, byte) in userinfo.enumerated() where byte == UInt8(ascii: "%") {
            guard index + 2 < userinfo.count, isHex(userinfo[index + 1]), isHex(userinfo[index + 2]) else {
                return false
            }
        }
        return true
    }

    /// `url` with these credentials as its userinfo, percent-encoded (for `export
    /// --with-credentials`).
    public func embedded(in url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var allowed = CharacterSet.urlUserAllowed
        allowed.remove(charactersIn: ":@/?#[]%")
        components.percentEncodedUser = user.addingPercentEncoding(withAllowedCharacters: allowed)
        components.percentEncodedPassword = password.addingPercentEncoding(withAllowedCharacters: allowed)
        return components.url ?? url
    }
}

/// Credentials in a URL that cannot be used.
public struct FeedCredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
