import FixtureServer
import Foundation
import SocketTestSupport
import Testing

/// `sync` through the binary against opodsync, a real server: one library's
/// listening reaches another, and the password stays where it was put.
@Suite("Sync", .serialized)
struct SyncProcessTests {
    @Test func oneLibrarysListeningReachesAnother() async throws {
        let sync = try await Opodsync.start()
        defer { sync.stop() }
        try await withServerAndFolder { server, root in
            func environment(_ name: String, password: String = "secret") -> [String: String] {
                [
                    "FEEDSH_LIBRARY": root.appendingPathComponent("\(name).sqlite").path,
                    "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("\(name)-files").path,
                    "FEEDSH_SYNC_PASSWORD": password,
                ]
            }
            let feed = server.baseURL.appendingPathComponent("feeds/1386867488.xml").absoluteString
            let login = "sync login \(sync.url.absoluteString) alice"

            let refused = try await runFeedsh(["-c", login], environment: environment("laptop", password: "guess"))
            #expect(refused.status == 1)
            #expect(
                refused.standardError.contains("the server refused user alice's password"),
                "\(refused.standardError)"
            )
            #expect(
                !FileManager.default.fileExists(atPath: root.appendingPathComponent("laptop.sqlite-sync.json").path)
            )

            let laptop = try await runFeedsh(
                ["--json", "-c", "subscribe \(feed); mark played 1-2; \(login) --device laptop; sync"],
                environment: environment("laptop")
            )
            #expect(laptop.status == 0, "\(laptop.standardError)")
            let report = try #require(laptop.standardOutput.split(separator: "\n").last)
            #expect(report.contains(#""pushed":{"download":0,"delete":0,"play":2,"new":0}"#), "\(report)")
            #expect(report.contains(#""subscriptions":{"added":1,"removed":0"#), "\(report)")
            #expect(report.contains(#""errors":[]"#), "\(report)")

            // The password: in a file of the owner's only, not in the library.
            let file = root.appendingPathComponent("laptop.sqlite-sync.json").path
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            for name in ["laptop.sqlite", "laptop.sqlite-wal"] {
                let data = FileManager.default.contents(atPath: root.appendingPathComponent(name).path) ?? Data()
                #expect(data.range(of: Data("secret".utf8)) == nil, "the password is in \(name)")
            }
            #expect(!laptop.standardOutput.contains("secret") && !laptop.standardError.contains("secret"))

            // Another library follows: it subscribes and takes the played marks.
            let phone = try await runFeedsh(
                ["-c", "\(login) --device phone; sync; sync status"],
                environment: environment("phone")
            )
            #expect(phone.status == 0, "\(phone.standardError)")
            #expect(phone.standardOutput.contains("subscribed to 1, unsubscribed from 0"), "\(phone.standardOutput)")
            #expect(
                phone.standardOutput.contains("received 2 actions (2 play): 2 episodes changed"),
                "\(phone.standardOutput)"
            )
            #expect(phone.standardOutput.contains("device: phone"), "\(phone.standardOutput)")
            #expect(phone.standardOutput.contains("waiting to be sent: 0 actions"), "\(phone.standardOutput)")
            let episodes = try await runFeedsh(
                ["--json", "-c", "podcast 1; episodes --limit 3"],
                environment: environment("phone")
            )
            let listed = try #require(episodes.standardOutput.split(separator: "\n").last)
            #expect(listed.components(separatedBy: #""played":true"#).count - 1 == 2, "\(listed)")

            let out = try await runFeedsh(["-c", "sync logout; sync"], environment: environment("phone"))
            #expect(out.status == 1)
            #expect(out.standardOutput.contains("logged out of"), "\(out.standardOutput)")
            #expect(out.standardError.contains("no sync account: 'sync login URL USER' sets one up"))
        }
    }
}
