import FixtureServer
import Foundation
import Testing

/// The binary through a real proxy (Debian's tinyproxy): feeds, the APIs and
/// downloads go through it by curl's rules for the environment, with both engines.
@Suite("Proxies", .serialized)
struct ProxyProcessTests {
    @Test(arguments: ["ahc", "urlsession"])
    func everythingGoesThroughTheProxy(engine: String) async throws {
        let proxy = try Tinyproxy()
        defer { proxy.stop() }
        try await proxy.ready()
        try await withServerAndFolder { server, root in
            let base = server.baseURL.absoluteString
            let target = "127.0.0.1:\(server.baseURL.port ?? 0)"
            let environment = [
                "http_proxy": proxy.url(), "FEEDSH_ITUNES_URL": base, "FEEDSH_POSTS_URL": base,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("d").path,
            ]
            let result = try await runFeedsh(
                ["--engine", engine, "-c", "post 1; lookup; get 1; wait; subscribe \(base)/feeds/listening.xml"],
                environment: environment
            )
            #expect(result.status == 0, "\(result.standardError)")
            let forwarded = proxy.requests
            // AsyncHTTPClient tunnels every request (CONNECT, a tunnel kept for
            // several); libcurl sends an http URL whole to the proxy.
            #expect(!forwarded.isEmpty)
            if engine == "ahc" {
                #expect(forwarded.allSatisfy { $0 == "CONNECT \(target) HTTP/1.1" }, "\(forwarded)")
            } else {
                #expect(forwarded.contains { $0.hasPrefix("GET \(base)/media/") }, "\(forwarded)")
            }
            // The download came through it: its file is on disk.
            let files =
                FileManager.default.enumerator(atPath: root.appendingPathComponent("d").path)?
                .compactMap { $0 as? String }.filter { $0.hasSuffix(".mp3") } ?? []
            #expect(files.count == 1, "\(files)")

            // no_proxy sends the same requests direct.
            let before = proxy.requests.count
            var direct = environment
            direct["no_proxy"] = "localhost, .127.0.0.1"
            let bypassed = try await runFeedsh(["--engine", engine, "-c", "post 2; lookup"], environment: direct)
            #expect(bypassed.status == 0, "\(bypassed.standardError)")
            #expect(proxy.requests.count == before, "\(proxy.requests)")
        }
    }

    /// A proxy that wants a password says so (407) until it is given in the URL,
    /// `%`-escapes and all (tinyproxy's own configuration takes only letters,
    /// digits, `-` and `_`; the parser's tests cover `:` and `@`).
    @Test func aProxyWithAPassword() async throws {
        let proxy = try Tinyproxy(basicAuth: ("alice", "s3cr3t_pw"))
        defer { proxy.stop() }
        try await proxy.ready()
        try await withServerAndFolder { server, root in
            let base = server.baseURL.absoluteString
            let refused = try await runFeedsh(
                ["-c", "post 1"],
                environment: ["http_proxy": proxy.url(), "FEEDSH_POSTS_URL": base]
            )
            #expect(refused.status == 1)
            #expect(
                refused.standardError.contains("the proxy 127.0.0.1:\(proxy.port) wants a user name and password"),
                "\(refused.standardError)"
            )
            let wrong = try await runFeedsh(
                ["-c", "post 1"],
                environment: ["http_proxy": proxy.url(user: "alice", password: "nope"), "FEEDSH_POSTS_URL": base]
            )
            #expect(wrong.status == 1)
            // tinyproxy answers a wrong password with 401, not 407.
            #expect(wrong.standardError.contains("refused the user name and password"), "\(wrong.standardError)")
            #expect(!wrong.standardError.contains("nope"), "\(wrong.standardError)")
            let good = try await runFeedsh(
                ["-c", "post 1"],
                environment: [
                    "http_proxy": proxy.url(user: "alice", password: "s3cr3t%5Fpw"), "FEEDSH_POSTS_URL": base,
                ]
            )
            #expect(good.status == 0, "\(good.standardError)")
            #expect(good.standardOutput.contains("post 1 by user 1"), "\(good.standardOutput)")
            _ = root
        }
    }

    /// A proxy that answers 407, garbage or nothing at all: the failure names
    /// the proxy, for a feed, an API request and a download, over http and
    /// through an https tunnel.
    @Test(arguments: HostileProxy.Answer.allCases)
    func aMisbehavingProxyIsNamed(answer: HostileProxy.Answer) async throws {
        let proxy = try HostileProxy(answer)
        defer { proxy.close() }
        try await withServerAndFolder { server, root in
            let base = server.baseURL.absoluteString
            for command in ["subscribe \(base)/feeds/listening.xml", "post 1", "image \(base)/images/photo.png"] {
                let result = try await runFeedsh(
                    ["-c", command],
                    environment: [
                        "http_proxy": proxy.url, "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                        "FEEDSH_POSTS_URL": base, "FEEDSH_CACHE_DIR": root.appendingPathComponent("cache").path,
                    ]
                )
                #expect(result.status == 1, "\(command): \(result.standardOutput)")
                #expect(
                    result.standardError.contains("proxy 127.0.0.1:\(proxy.port)"),
                    "\(answer) \(command): \(result.standardError)"
                )
            }
        }
    }

    /// A proxy that is not there, and proxy settings feedsh cannot use: one line
    /// each, naming the proxy or the variable, and nothing stored.
    @Test func badProxiesAreNamed() async throws {
        let closed = try ClosedPort()
        try await withServerAndFolder { server, root in
            let base = server.baseURL.absoluteString
            let library = root.appendingPathComponent("library.sqlite")
            // Feeds, the APIs and downloads (with both engines) all need the proxy.
            for (engine, command) in [
                ("ahc", "subscribe \(base)/feeds/listening.xml"), ("ahc", "post 1"),
                ("ahc", "image \(base)/images/photo.png"), ("urlsession", "image \(base)/images/photo.png"),
            ] {
                let down = try await runFeedsh(
                    ["--engine", engine, "-c", command],
                    environment: [
                        "http_proxy": "http://127.0.0.1:\(closed.port)", "FEEDSH_LIBRARY": library.path,
                        "FEEDSH_POSTS_URL": base, "FEEDSH_CACHE_DIR": root.appendingPathComponent("cache").path,
                    ]
                )
                #expect(down.status == 1, "\(command): \(down.standardOutput)")
                #expect(
                    down.standardError.contains("127.0.0.1:\(closed.port)")
                        && down.standardError.contains("refused"),
                    "\(engine) \(command): \(down.standardError)"
                )
            }
            for (variable, value, words) in [
                ("http_proxy", "127.0.0.1:3128", "has no scheme: write http://127.0.0.1:3128"),
                ("HTTPS_PROXY", "http://proxy.example:99999", "has a bad port '99999'"),
                ("all_proxy", "http://proxy.example:x", "has a bad port 'x'"),
                ("https_proxy", "https://proxy.example", "feedsh speaks http:// and socks5:// ones"),
                ("http_proxy", "http://bob:%zz@proxy.example:8080", "malformed %-escape"),
            ] {
                let result = try await runFeedsh(
                    ["-c", "subscribe \(base)/feeds/listening.xml"],
                    environment: [variable: value, "FEEDSH_LIBRARY": library.path]
                )
                #expect(result.status == 2, "\(variable)=\(value): \(result.standardError)")
                #expect(result.standardError.contains("\(variable) '"), "\(result.standardError)")
                #expect(result.standardError.contains(words), "\(result.standardError)")
                #expect(!result.standardError.contains("%zz@"), "the password is not shown: \(result.standardError)")
            }
            // Nothing was subscribed, by any of them.
            let listed = try await runFeedsh(["-c", "podcasts"], environment: ["FEEDSH_LIBRARY": library.path])
            #expect(!listed.standardOutput.contains("Tones"), "\(listed.standardOutput)")
        }
        withExtendedLifetime(closed) {}
    }
}
