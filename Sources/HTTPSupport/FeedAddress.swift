import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether a feed address feedsh did not get from its user (another device named
/// it through sync, an assistant through mcp) is one it fetches: an `http` or
/// `https` URL with a host that is not an address no user types for a podcast (link-local `169.254.0.0/16` and `fe80::/10`, where clouds answer
/// with their instances' secrets; unspecified, multicast and broadcast ones).
///
/// IPv4 is read as the resolver reads it (`inet_aton`: `2852039166` and
/// `0xa9.0xfe.0xa9.0xfe` are `169.254.169.254`). A name that resolves to such an
/// address is not caught here.
public enum FeedAddress {
    /// Why `text` is not fetched, or nil when it is.
    public static func refusal(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            return "not a URL"
        }
        guard scheme == "http" || scheme == "https" else { return "not an http(s) URL" }
        guard var host = url.host, !host.isEmpty else { return "no host" }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_aton(host, &v4) != 0 {
            return refusal(ipv4: UInt32(bigEndian: v4.s_addr))
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return refusal(ipv4: bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
            }
            if bytes.allSatisfy({ $0 == 0 }) { return "an unspecified address" }
            if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return "a link-local address" }
            if bytes[0] == 0xFF { return "a multicast address" }
        }
        return nil
    }

    private static func refusal(ipv4 address: UInt32) -> String? {
        switch address >> 24 {
        case 0: return "an unspecified address"
        case 169 where (address >> 16) & 0xFF == 254: return "a link-local address"
        case 224...239: return "a multicast address"
        case 240...255: return "a reserved or broadcast address"
        default: return nil
        }
    }
}
