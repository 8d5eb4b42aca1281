import FixtureServer
import Foundation
import Testing

/// A members' feed through the binary: credentials from the URL or `--user`, sent
/// to the feed's origin only, never shown, exported only when asked.
@Suite("Private feeds", .serialized)
struct PrivateFeedProcessTests {
    private static let basic =
        "Basic " + Data("\(FixtureServer.privateUser):\(FixtureServer.privatePassword)".utf8).base64EncodedString()

    @Test(arguments: ["ahc", "urlsession"])
    func credentialsGoToTheFeedsOriginOnly(engine: String) async throws {
        try await withServerAndFolder { server, root in
            let port = server.baseURL.port ?? 0
            let environment = [
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("d").path,
            ]
            let bare = "http://127.0.0.1:\(port)/feeds/private.xml"
            // Without credentials: one line that says how to give them; nothing kept.
            let asked = try await runFeedsh(["-c", "subscribe \(bare)"], environment: environment)
            #expect(asked.status == 1)
            #expect(
                asked.standardError.contains(
                    "the feed at 127.0.0.1 wants a user name and password (subscribe URL --user NAME)"
                ),
                "\(asked.standardError)"
            )
            let wrong = try await runFeedsh(
                ["-c", "subscribe http://alice:guess@127.0.0.1:\(port)/feeds/private.xml"],
                environment: environment
            )
            #expect(wrong.status == 1)
            #expect(wrong.standardError.contains("refused alice's password (HTTP 401)"), "\(wrong.standardError)")
            #expect(!wrong.standardError.contains("guess"), "\(wrong.standardError)")

            // `:` and `@` in the password, %-escaped in the URL.
            let url = "http://alice:p%40ss%3Aword@127.0.0.1:\(port)/feeds/private.xml"
            let result = try await runFeedsh(
                ["--engine", engine, "--json", "-c", "subscribe \(url); podcasts; get 1-3; wait; export"],
                environment: environment
            )
            #expect(result.status == 0, "\(result.standardError)")
            #expect(!result.standardOutput.contains("p%40ss") && !result.standardOutput.contains("p@ss"))
            #expect(result.standardOutput.contains(#""feedURL":"\#(bare)""#), "\(result.standardOutput)")
            let files =
                FileManager.default.enumerator(atPath: root.appendingPathComponent("d").path)?
                .compactMap { $0 as? String }.filter { $0.hasSuffix(".mp3") } ?? []
            #expect(files.count == 3, "\(files)")

            let requests = server.requests
            let feed = requests.filter { $0.path == "/feeds/private.xml" }
            #expect(feed.last?.authorization == Self.basic)
            let own = requests.filter { $0.path == "/private/media/1.mp3" }
            #expect(!own.isEmpty && own.allSatisfy { $0.authorization == Self.basic }, "\(own)")
            // Another origin (localhost), directly or by a redirect: never.
            let elsewhere = requests.filter { $0.authority?.hasPrefix("localhost:") == true }
            #expect(elsewhere.map(\.path).contains("/media/private-2.mp3"), "\(elsewhere)")
            #expect(elsewhere.map(\.path).contains("/media/private-3.mp3"), "\(elsewhere)")
            #expect(elsewhere.allSatisfy { $0.authorization == nil }, "\(elsewhere)")

            // Kept apart from the URL: the library's podcast row has none.
            let exported = try await runFeedsh(["-c", "export --with-credentials"], environment: environment)
            #expect(exported.standardOutput.contains(#"xmlUrl="\#(url)""#), "\(exported.standardOutput)")
            let library = try Data(contentsOf: root.appendingPathComponent("library.sqlite"))
            #expect(library.range(of: Data("alice:p".utf8)) == nil)
            // To a file: its owner's alone from the start (written 0600, then
            // renamed into place).
            let file = root.appendingPathComponent("subscriptions.opml").path
            let written = try await runFeedsh(
                ["-c", "export \(file) --with-credentials"],
                environment: environment
            )
            #expect(written.status == 0, "\(written.standardError)")
            let mode = (try? FileManager.default.attributesOfItem(atPath: file))?[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(
                FileManager.default.contents(atPath: file).map { String(decoding: $0, as: UTF8.self) }?.contains(url)
                    == true
            )
        }
    }

    /// `--user NAME` with the password from `FEEDSH_FEED_PASSWORD`; `update` then
    /// reads the feed with them.
    @Test func userFlagAndTheEnvironment() async throws {
        try await withServerAndFolder { server, root in
            let environment = [
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("d").path,
                "FEEDSH_FEED_PASSWORD": FixtureServer.privatePassword,
            ]
            let feed = "\(server.baseURL.absoluteString)/feeds/private.xml"
            let result = try await runFeedsh(
                ["-c", "subscribe \(feed) --user \(FixtureServer.privateUser); update; podcasts"],
                environment: environment
            )
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("subscribed to Members Only: 3 episodes"))
            #expect(!result.standardOutput.contains("wants a user name"), "\(result.standardOutput)")
            let fetched = server.requests.filter { $0.path == "/feeds/private.xml" }
            #expect(fetched.count >= 2 && fetched.allSatisfy { $0.authorization == Self.basic }, "\(fetched)")
            // Its own transcript and chapters (same origin) go with them too, by
            // P:E and from the loaded podcast.
            let extras = try await runFeedsh(
                ["-c", "transcript 1:1; chapters 1:1; podcast 1; chapters 1"],
                environment: environment
            )
            #expect(extras.standardOutput.contains("Ada: Welcome to the tone"), "\(extras.standardError)")
            #expect(extras.standardOutput.contains("Opening"), "\(extras.standardError)")
            let own = server.requests.filter {
                $0.path.hasPrefix("/private/transcripts/") || $0.path.hasPrefix("/private/chapters/")
            }
            #expect(own.count >= 2 && own.allSatisfy { $0.authorization == Self.basic }, "\(own)")
            // A broken %-escape in the URL's password is named; nothing is stored.
            let broken = try await runFeedsh(
                ["-c", "subscribe http://bob:s3%zz@127.0.0.1:\(server.baseURL.port ?? 0)/feeds/private.xml; podcasts"],
                environment: environment
            )
            #expect(broken.status == 1)
            #expect(broken.standardError.contains("has a broken %-escape"), "\(broken.standardError)")
            #expect(!broken.standardError.contains("s3%zz"), "\(broken.standardError)")
            // Text that is no URL at all is echoed without its password.
            let malformed = try await runFeedsh(
                ["-c", "subscribe 'https://bob:s3 cr/et@feeds example/rss'"],
                environment: environment
            )
            #expect(malformed.status == 1)
            #expect(malformed.standardError.contains("https://bob:***@feeds example/rss"), "\(malformed.standardError)")
            #expect(!malformed.standardError.contains("s3 cr"), "\(malformed.standardError)")
        }
    }
}
