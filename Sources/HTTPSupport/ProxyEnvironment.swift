import Foundation
import WebBasics

/// A proxy to send requests through: an HTTP proxy (requests tunnel through it with
/// `CONNECT`, as AsyncHTTPClient does for http and https alike) or a SOCKS5 one.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case http
        case socks5
    }

    public let kind: Kind
    public let host: String
    public let port: Int
    /// Basic credentials for the proxy (`http://user:pass@host:port`), percent-decoded.
    public let user: String?
    public let password: String?

    public init(kind: Kind = .http, host: String, port: Int, user: String? = nil, password: String? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.user = user
        self.password = password
    }

    /// `http://host:port`, without the credentials: how messages name it.
    public var description: String { "\(kind.rawValue)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Reads a proxy as curl does, from `variable`'s `text`: `http://[user:pass@]host[:port]`
    /// (port 1080 when none is given, as curl's default) or `socks5://` /
    /// `socks5h://host[:port]`. A proxy without a scheme, with a bad port, or of a
    /// kind feedsh cannot use is a ``ProxyError`` naming the variable.
    public init(parsing text: String, variable: String) throws(ProxyError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = trimmed.range(of: "://") else {
            throw ProxyError(variable, text, problem: "has no scheme: write http://\(ProxyError.redacted(trimmed))")
        }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        let kind: Kind
        switch scheme {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        default:
            throw ProxyError(
                variable,
                text,
                problem: "is a \(scheme):// proxy; feedsh speaks http:// and socks5:// ones"
            )
        }
        // The authority: [user[:password]@]host[:port], up to any path.
        let authority = WrittenAuthority(in: Substring(trimmed))
        // An '@' past it means user information with a character it must escape
        // ('/', '#', '?', '@', a space): refused as that, not misread as a host
        // and a port taken from the password.
        if let at = trimmed[schemeEnd.upperBound...].lastIndex(of: "@"),
            authority.map({ $0.userinfo == nil || $0.text.endIndex <= at }) ?? true
        {
            throw ProxyError(
                variable,
                text,
                problem: "has a '/', '#', '?', '@' or space in its user name or password: write it %-escaped"
            )
        }
        var user: String?
        var password: String?
        if let userinfo = authority?.userinfo {
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            user = parts.first.flatMap { String($0).removingPercentEncoding }
            password = parts.count > 1 ? String(parts[1]).removingPercentEncoding : nil
            guard user != nil, parts.count < 2 || password != nil else {
                throw ProxyError(variable, text, problem: "has a malformed %-escape in its user name or password")
            }
        }
        var host = authority?.host ?? ""
        var portText: Substring?
        if host.hasPrefix("[") {
            // [IPv6]:port
            guard let close = host.firstIndex(of: "]") else {
                throw ProxyError(variable, text, problem: "has an unclosed '[' in its host")
            }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty else { throw ProxyError(variable, text, problem: "names no host") }
        var port = 1080
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw ProxyError(variable, text, problem: "has a bad port '\(portText)' (1-65535)")
            }
            port = number
        }
        if kind == .socks5, user != nil {
            throw ProxyError(variable, text, problem: "is a SOCKS proxy with a password, which feedsh cannot send")
        }
        self.init(kind: kind, host: String(host), port: port, user: user, password: password)
    }
}

/// A proxy setting that cannot be used, naming the variable and why.
public struct ProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    init(_ variable: String, _ text: String, problem: String) {
        description = "\(variable) '\(ProxyError.redacted(text))' \(problem)"
    }

    static func redacted(_ text: String) -> String { RedactedURLText.redacted(text) }
}

/// Which proxy a request goes through, by curl's rules for the environment:
///
/// - `http_proxy` for http URLs: the lowercase name only (curl ignores
///   `HTTP_PROXY`, which a CGI program's `Proxy:` request header could set);
/// - `https_proxy` (else `HTTPS_PROXY`) for https URLs;
/// - `all_proxy` (else `ALL_PROXY`) for either, when the scheme's own is unset;
/// - `no_proxy` (else `NO_PROXY`): hosts that connect directly, comma-separated:
///   `*` for all, a name that matches itself and its subdomains (`example.com`
///   and `.example.com` both match `example.com` and `www.example.com`), an IP
///   address, or an IPv4 range in CIDR form (`10.0.0.0/8`). Case is ignored, and
///   a port after a name is ignored.
///
/// Lowercase wins over uppercase when both are set; an empty variable is unset.
public struct ProxyEnvironment: Sendable, Equatable {
    public var http: ProxyServer?
    public var https: ProxyServer?
    public var all: ProxyServer?
    /// The `no_proxy` entries, lowercased, without leading dots.
    public var noProxy: [String]

    public init(http: ProxyServer? = nil, https: ProxyServer? = nil, all: ProxyServer? = nil, noProxy: [String] = []) {
        self.http = http
        self.https = https
        self.all = all
        self.noProxy = noProxy
    }

    /// No proxies at all.
    public static let direct = ProxyEnvironment()

    /// The proxies `environment` names; a bad one is an error naming its variable.
    public init(environment: [String: String]) throws(ProxyError) {
        func value(_ names: String...) -> (name: String, text: String)? {
            for name in names {
                if let text = environment[name], !text.trimmingCharacters(in: .whitespaces).isEmpty {
                    return (name, text)
                }
            }
            return nil
        }
        func proxy(_ names: String...) throws(ProxyError) -> ProxyServer? {
            for name in names {
                if let found = value(name) { return try ProxyServer(parsing: found.text, variable: found.name) }
            }
            return nil
        }
        self.init(
            http: try proxy("http_proxy"),
            https: try proxy("https_proxy", "HTTPS_PROXY"),
            all: try proxy("all_proxy", "ALL_PROXY"),
            noProxy: (value("no_proxy", "NO_PROXY")?.text ?? "").split(separator: ",").compactMap { entry in
                var item = entry.trimmingCharacters(in: .whitespaces).lowercased()
                while item.hasPrefix(".") { item.removeFirst() }
                return item.isEmpty ? nil : item
            }
        )
    }

    /// Whether any proxy is set.
    public var isEmpty: Bool { http == nil && https == nil && all == nil }

    /// The proxy for `url`, or nil to connect directly.
    public func proxy(for url: URL) -> ProxyServer? {
        let scheme = url.scheme?.lowercased()
        guard let proxy = (scheme == "https" ? https : scheme == "http" ? http : nil) ?? all else { return nil }
        guard let host = url.host?.lowercased(), !bypasses(host) else { return nil }
        return proxy
    }

    /// Whether `no_proxy` sends `host` direct.
    public func bypasses(_ host: String) -> Bool {
        let host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return noProxy.contains { entry in
            if entry == "*" { return true }
            if entry.contains("/") { return Self.inRange(host, cidr: entry) }
            // A port after a name (`example.com:8080`) is ignored, as curl does.
            let name =
                entry.filter({ $0 == ":" }).count == 1 ? String(entry.prefix { $0 != ":" }) : entry
            let bare = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
            return host == bare || host.hasSuffix("." + bare)
        }
    }

    /// Whether the IPv4 address `host` is in `cidr` (`10.0.0.0/8`).
    static func inRange(_ host: String, cidr: String) -> Bool {
        let parts = cidr.split(separator: "/")
        guard parts.count == 2, let bits = Int(parts[1]), (0...32).contains(bits),
            let network = ipv4(String(parts[0])), let address = ipv4(host)
        else { return false }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
        return network & mask == address & mask
    }

    private static func ipv4(_ text: String) -> UInt32? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var value: UInt32 = 0
        for octet in octets {
            guard let byte = UInt8(octet) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }
}
