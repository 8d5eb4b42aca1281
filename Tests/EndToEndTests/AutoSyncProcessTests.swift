import FixtureServer
import Foundation
import SocketTestSupport
import Testing

/// `set sync auto on` through the binary, against the fixture server's sync API:
/// `update` syncs in the background, a manual `sync` waits for it, and only a
/// failure is said.
@Suite("Automatic sync")
struct AutoSyncProcessTests {
    /// The sync runs behind `update` (its first request to each path held up 1.5 s
    /// by the server, the next command does not wait for it); `sync` waits for it instead of sending
    /// the same actions a second time; nothing about it is said.
    @Test func updateSyncsInTheBackgroundAndSyncWaitsForIt() async throws {
        try await withServerAndFolder { server, root in
            let environment = syncEnvironment(root)
            let feed = server.baseURL.appendingPathComponent("feeds/1386867488.xml").absoluteString
            let slow = server.baseURL.appendingPathComponent("fault/delay=1500,times=1").absoluteString
            let result = try await runFeedsh(
                [
                    "--json", "-c",
                    "set sync auto on; subscribe \(feed); mark played 1-3; sync login \(slow) alice; update; "
                        + "sync status; sync",
                ],
                environment: environment
            )
            #expect(result.status == 0, "\(result.standardError)")
            let lines = result.standardOutput.split(separator: "\n")
            let status = try #require(lines.first { $0.contains(#""command":"sync""#) && $0.contains("outbox") })
            // Still waiting while the automatic sync is held up.
            #expect(status.contains(#""outbox":{"actions":3,"subscriptions":1}"#), "\(status)")
            let manual = try #require(lines.last)
            #expect(manual.contains(#""pushed":{"download":0,"delete":0,"play":0,"new":0}"#), "\(manual)")
            #expect(!result.standardOutput.contains(#""event":"sync""#), "\(result.standardOutput)")
            #expect(!result.standardError.contains("sync"), "\(result.standardError)")
            #expect(server.syncState(user: "alice").actions == 3)
            #expect(server.syncState(user: "alice").subscriptions == [feed])
        }
    }

    /// A sync that cannot reach its server says so, once, after the command's
    /// own result, which stands; the exit status is the command's.
    @Test func aFailedAutomaticSyncIsSaid() async throws {
        try await withServerAndFolder { server, root in
            let environment = syncEnvironment(root)
            let feed = server.baseURL.appendingPathComponent("feeds/1386867488.xml").absoluteString
            let login = try await runFeedsh(
                ["-c", "subscribe \(feed); sync login \(server.baseURL.absoluteString) alice; set sync auto on"],
                environment: environment
            )
            #expect(login.status == 0, "\(login.standardError)")
            // The login now points at a port where nobody listens.
            let closed = try ClosedPort()
            let file = root.appendingPathComponent("library.sqlite-sync.json")
            #expect(try String(contentsOf: file, encoding: .utf8).contains("127.0.0.1:\(server.baseURL.port ?? 0)"))
            let text = try String(contentsOf: file, encoding: .utf8)
                .replacingOccurrences(of: "127.0.0.1:\(server.baseURL.port ?? 0)", with: "127.0.0.1:\(closed.port)")
            try Data(text.utf8).write(to: file)

            let text1 = try await runFeedsh(["-c", "update"], environment: environment)
            #expect(text1.status == 0, "\(text1.standardError)")
            #expect(text1.standardOutput.contains("1 feed:"), "\(text1.standardOutput)")
            #expect(
                text1.standardError.contains("automatic sync failed: cannot connect to 127.0.0.1:\(closed.port)"),
                "\(text1.standardError)"
            )
            let json = try await runFeedsh(["--json", "-c", "update"], environment: environment)
            let event = try #require(
                json.standardOutput.split(separator: "\n").first { $0.contains(#""event":"sync""#) }
            )
            #expect(event.contains(#""ok":false"#) && event.contains(#""code":"sync-network""#), "\(event)")
            let waiting = try await runFeedsh(["--json", "-c", "sync status"], environment: environment)
            #expect(waiting.standardOutput.contains(#""outbox":{"actions":0,"subscriptions":1}"#))
        }
    }

    /// Logging in to an account never synced with sends the listening done
    /// before, once.
    @Test func aNewAccountHearsOfEarlierListening() async throws {
        try await withServerAndFolder { server, root in
            let environment = syncEnvironment(root)
            let feed = server.baseURL.appendingPathComponent("feeds/1386867488.xml").absoluteString
            let base = server.baseURL.absoluteString
            let first = try await runFeedsh(
                ["-c", "subscribe \(feed); mark played 1-2; sync login \(base) alice; sync"],
                environment: environment
            )
            #expect(first.status == 0, "\(first.standardError)")
            #expect(!first.standardOutput.contains("earlier play"), "\(first.standardOutput)")
            let other = try await runFeedsh(
                ["-c", "sync login \(base) bob; sync; sync login \(base) bob"],
                environment: environment
            )
            #expect(other.status == 0, "\(other.standardError)")
            #expect(other.standardOutput.components(separatedBy: "(and sends 2 earlier plays)").count == 2)
            #expect(server.syncState(user: "bob").actions == 2)
        }
    }
}

/// The environment of a feedsh whose library and files are in `root`, with the
/// sync password `password` (the fixture server's by default).
func syncEnvironment(_ root: URL, password: String = FixtureServer.syncPassword) -> [String: String] {
    [
        "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
        "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("files").path,
        "FEEDSH_SYNC_PASSWORD": password,
    ]
}
