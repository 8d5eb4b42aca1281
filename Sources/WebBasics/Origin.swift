import Foundation

extension URL {
    /// The origin credentials may be sent to: scheme, host and port (the default
    /// port of the scheme when none is written), as `https://host:443`.
    public var origin: String {
        let scheme = scheme?.lowercased() ?? ""
        let port = port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host?.lowercased() ?? ""):\(port)"
    }
}
