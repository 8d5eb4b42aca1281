import Foundation
import HTTPSupport
import Testing

@Suite("Proxy environment")
struct ProxyEnvironmentTests {
    private func proxies(_ environment: [String: String]) throws -> ProxyEnvironment {
        try ProxyEnvironment(environment: environment)
    }

    private func host(_ proxy: ProxyServer?) -> String? { proxy.map { "\($0.host):\($0.port)" } }

    @Test func eachSchemeHasItsVariableAsCurlReadsThem() throws {
        let http = URL(string: "http://feeds.example/rss")!
        let https = URL(string: "https://feeds.example/rss")!
        // HTTP_PROXY is ignored for http (a CGI program's Proxy: header sets it).
        #expect(try proxies(["HTTP_PROXY": "http://upper:1"]).proxy(for: http) == nil)
        #expect(try host(proxies(["http_proxy": "http://lower:2"]).proxy(for: http)) == "lower:2")
        #expect(try proxies(["http_proxy": "http://lower:2"]).proxy(for: https) == nil)
        // https_proxy, else HTTPS_PROXY; lowercase wins.
        #expect(try host(proxies(["HTTPS_PROXY": "http://upper:3"]).proxy(for: https)) == "upper:3")
        #expect(
            try host(proxies(["HTTPS_PROXY": "http://upper:3", "https_proxy": "http://lower:4"]).proxy(for: https))
                == "lower:4"
        )
        // all_proxy (or ALL_PROXY) for either, when the scheme's own is unset.
        let all = try proxies(["ALL_PROXY": "http://all:5", "https_proxy": "http://secure:6"])
        #expect(host(all.proxy(for: http)) == "all:5")
        #expect(host(all.proxy(for: https)) == "secure:6")
        // Empty is unset; no port is curl's 1080.
        #expect(try proxies(["http_proxy": "  "]).isEmpty)
        #expect(try host(proxies(["http_proxy": "http://bare"]).proxy(for: http)) == "bare:1080")
        #expect(try proxies(["all_proxy": "socks5h://tor:9050"]).proxy(for: https)?.kind == .socks5)
    }

    @Test func noProxyMatchesNamesSuffixesAddressesAndRanges() throws {
        func direct(_ noProxy: String, _ host: String) throws -> Bool {
            try proxies(["http_proxy": "http://p:1", "no_proxy": noProxy])
                .proxy(for: URL(string: "http://\(host)/feed")!) == nil
        }
        #expect(try direct("*", "anything.example"))
        #expect(try direct("example.com", "example.com"))
        #expect(try direct("example.com", "www.EXAMPLE.com"))
        #expect(try direct(".example.com", "example.com"))
        #expect(try direct(".example.com", "a.b.example.com"))
        #expect(try !direct("example.com", "notexample.com"))
        #expect(try !direct("example.com", "example.com.evil"))
        #expect(try direct("localhost, 127.0.0.1", "127.0.0.1"))
        #expect(try direct("other.example,feeds.example:8080", "feeds.example"))
        #expect(try direct("10.0.0.0/8", "10.20.30.40"))
        #expect(try !direct("10.0.0.0/8", "11.0.0.1"))
        #expect(try direct("192.168.1.0/24", "192.168.1.200"))
        #expect(try direct("::1", "[::1]"))
        #expect(try !direct("", "example.com"))
        #expect(try proxies(["http_proxy": "http://p:1", "NO_PROXY": "example.com"]).bypasses("example.com"))
    }

    @Test func credentialsAreDecodedAndNeverShown() throws {
        let proxy = try #require(
            try proxies(["http_proxy": "http://al%40ice:p%3Ass@word@proxy.example:3128/"]).http
        )
        #expect(proxy.user == "al@ice")
        #expect(proxy.password == "p:ss@word")
        #expect(proxy.host == "proxy.example")
        #expect(proxy.description == "http://proxy.example:3128")
        let ipv6 = try #require(try proxies(["http_proxy": "http://[::1]:8080"]).http)
        #expect(ipv6.host == "::1" && ipv6.port == 8080)
    }

    @Test(arguments: [
        (
            "http_proxy", "proxy.example:3128",
            "http_proxy 'proxy.example:3128' has no scheme: write http://proxy.example:3128"
        ),
        ("https_proxy", "http://proxy.example:0", "https_proxy 'http://proxy.example:0' has a bad port '0' (1-65535)"),
        (
            "HTTPS_PROXY", "http://proxy.example:65536",
            "HTTPS_PROXY 'http://proxy.example:65536' has a bad port '65536' (1-65535)"
        ),
        (
            "all_proxy", "http://proxy.example:http",
            "all_proxy 'http://proxy.example:http' has a bad port 'http' (1-65535)"
        ),
        (
            "http_proxy", "https://proxy.example",
            "http_proxy 'https://proxy.example' is a https:// proxy; feedsh speaks http:// and socks5:// ones"
        ),
        (
            "http_proxy", "http://bob:s3%zz@proxy.example",
            "http_proxy 'http://bob:***@proxy.example' has a malformed %-escape in its user name or password"
        ),
        ("http_proxy", "http://:8080", "http_proxy 'http://:8080' names no host"),
        (
            "all_proxy", "socks5://u:p@tor:9050",
            "all_proxy 'socks5://u:***@tor:9050' is a SOCKS proxy with a password, which feedsh cannot send"
        ),
        // Refused for what is wrong with them, the password never shown: no
        // scheme, an unescaped '/', '#', '?' or space in it.
        (
            "http_proxy", "bob:s3cret@proxy.example:3128",
            "http_proxy 'bob:***@proxy.example:3128' has no scheme: write http://bob:***@proxy.example:3128"
        ),
    ])
    func badProxiesNameTheVariable(variable: String, value: String, message: String) {
        #expect(throws: ProxyError.self) { try proxies([variable: value]) }
        do {
            _ = try proxies([variable: value])
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test(arguments: [
        "http://bob:Zq/xv@proxy.example:3128", "http://bob:Zq#xv@proxy.example", "http://bob:Zq?xv@proxy.example",
        "http://bob:Zq xv@proxy.example", "http://bob:Z@qxv@proxy.example:3128x", "bob:Zq/xv@proxy.example",
    ])
    func aRefusedProxyNeverShowsItsPassword(value: String) {
        do {
            let found = try proxies(["http_proxy": value])
            // Read as something else (no error): nothing is shown to leak.
            #expect(found.http != nil)
        } catch {
            let said = "\(error)"
            #expect(!said.contains("Zq") && !said.contains("xv"), "\(said)")
            #expect(said.contains("bob:***@"), "\(said)")
        }
    }
}
