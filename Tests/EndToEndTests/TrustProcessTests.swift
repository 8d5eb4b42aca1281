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
}
