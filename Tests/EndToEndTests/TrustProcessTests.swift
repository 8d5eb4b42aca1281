import FixtureServer
import Foundation
import Testing

/// What a hostile server can no longer do to a library, through the binary.
@Suite("Hostile servers")
struct TrustProcessTests {
    /// A pulled play action stamped `10000-01-01` once stored a date the library
    /// could not read back: every later `sync` died (SIGILL) and the podcast's
    /// `episodes` failed. It is skipped now, and the second run, the one that used
    /// to die, reads the library as before.
    @Test func anActionFromTheYear10000IsSkippedAndTheLibraryStaysReadable() async throws {
        try await withServerAndFolder { server, root in
            let environment = syncEnvironment(root)
            let feed = server.baseURL.appendingPathComponent("feeds/1386867488.xml").absoluteString
            let setUp = try await runFeedsh(
                ["-c", "subscribe \(feed); sync login \(server.baseURL.absoluteString) alice"],
                environment: environment
            )
            #expect(setUp.status == 0, "\(setUp.standardError)")
            server.addSyncActions(
                Data(
                    """
                    [{"podcast": "\(feed)", "episode": "http://elsewhere.example/1.mp3",
                      "guid": "feedsh-1000700000001", "action": "play", "timestamp": "10000-01-01T00:00:00",
                      "started": 0, "position": 10, "total": 100}]
                    """.utf8
                ),
                user: "alice"
            )
            for run in 1...2 {
                let result = try await runFeedsh(
                    ["--json", "-c", "sync; podcast 1; episodes"],
                    environment: environment
                )
                #expect(result.status == 0 && !result.signalled, "run \(run): \(result.standardError)")
                let episodes = jsonLines(result.standardOutput).last?["result"] as? [[String: Any]]
                #expect(episodes?.count == 5, "run \(run): \(result.standardOutput)")
                #expect(episodes?.first?["position"] as? Double == 0, "run \(run)")
            }
        }
    }

    /// The player gets none of the secrets feedsh was given in its environment.
    @Test func thePlayerInheritsNoSecret() async throws {
        try await withServerAndFolder { server, root in
            let seen = root.appendingPathComponent("player-environment")
            var environment = syncEnvironment(root, password: "sync-s3cret")
            environment["FEEDSH_FEED_PASSWORD"] = "feed-s3cret"
            environment["FEEDSH_PODCASTINDEX_SECRET"] = "index-s3cret"
            environment["FEEDSH_PLAYER"] = "sh -c 'env > \(seen.path)' {}"
            let feed = server.baseURL.appendingPathComponent("feeds/listening.xml").absoluteString
            let result = try await runFeedsh(["-c", "subscribe \(feed); play 1:4"], environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            let text = try String(contentsOf: seen, encoding: .utf8)
            #expect(text.contains("PATH="))
            #expect(!text.contains("s3cret"), "\(text)")
        }
    }
}
