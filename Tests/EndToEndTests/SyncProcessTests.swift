import FixtureServer
import Foundation
import SocketTestSupport
import Subprocess
import SystemPackage
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

    /// gPodder's own client library (mygpoclient, from the venv `make test-deps`
    /// makes), by `Scripts/mygpo.py`.
    static func mygpo(_ arguments: [String]) async throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python = root.appendingPathComponent(".build-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw OpodsyncError("no \(python.path): 'make test-deps' makes the venv with mygpoclient")
        }
        let result = try await Subprocess.run(
            .path(FilePath(python.path)),
            arguments: Arguments([root.appendingPathComponent("Scripts/mygpo.py").path] + arguments),
            output: .string(limit: 1 << 20),
            error: .string(limit: 1 << 16)
        )
        guard result.terminationStatus.isSuccess else {
            throw OpodsyncError("mygpo.py \(arguments.first ?? ""): \result.standardError")
        }
        return result.standardOutput
    }

    /// Another device (gPodder's own client) subscribed with `user:password@` in
    /// the URL, and to a link-local address: feedsh follows the first with its
    /// credentials kept apart from the feed URL and shown without the password,
    /// and never asks the second.
    @Test func aPrivateFeedFromAnotherDeviceKeepsItsPasswordApart() async throws {
        try await withSyncServer { sync, server, root, environment in
            let port = server.baseURL.port ?? 0
            let url = "http://alice:p%40ss%3Aword@127.0.0.1:\(port)/feeds/private.xml"
            let bare = "http://127.0.0.1:\(port)/feeds/private.xml"
            _ = try await Self.mygpo([
                "subscribe", sync.url.absoluteString, sync.user, sync.password, "desktop", url,
                "http://169.254.169.254/latest/feed.xml",
            ])
            // opodsync answers changes of the second of `since` again.
            try await Task.sleep(for: .milliseconds(1100))
            let result = try await runFeedsh(
                [
                    "--json", "-c",
                    "sync login \(sync.url.absoluteString) \(sync.user) --device laptop; sync; podcasts; update",
                ],
                environment: environment
            )
            #expect(result.status == 0, "\(result.standardError)")
            #expect(
                result.standardOutput.contains(#""subscribed":["http://alice@127.0.0.1:\#(port)/feeds/private.xml"]"#),
                "\(result.standardOutput)"
            )
            #expect(
                result.standardOutput.contains(
                    "not following http://169.254.169.254/latest/feed.xml: a link-local address"
                ),
                "\(result.standardOutput)"
            )
            #expect(!result.standardOutput.contains("p%40ss") && !result.standardError.contains("p%40ss"))
            #expect(result.standardOutput.contains(#""feedURL":"\#(bare)""#), "\(result.standardOutput)")
            let fetched = server.requests.filter { $0.path == "/feeds/private.xml" }
            #expect(fetched.count >= 2, "\(fetched)")
            #expect(fetched.allSatisfy { $0.authorization?.hasPrefix("Basic ") == true }, "\(fetched)")
            #expect(!server.requests.contains { $0.authority?.hasPrefix("169.254") == true })
            let library = try Data(contentsOf: root.appendingPathComponent("library.sqlite"))
            #expect(library.range(of: Data("alice:p".utf8)) == nil)
        }
    }

    @Test func gpoddersOwnClientReadsWhatFeedshSendsAndBack() async throws {
        try await withSyncServer { sync, server, root, environment in
            let feed = server.baseURL.appendingPathComponent("feeds/1386867488.xml").absoluteString
            let account = [sync.url.absoluteString, sync.user, sync.password]
            let sent = try await runFeedsh(
                [
                    "--json", "-c",
                    "subscribe \(feed); mark played 1; sync login \(sync.url.absoluteString) alice --device laptop; sync; episodes",
                ],
                environment: environment
            )
            #expect(sent.status == 0, "\(sent.standardError)")
            let lines = sent.standardOutput.split(separator: "\n")
            let episodes =
                try #require(
                    try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any]
                )["result"] as? [[String: Any]]
            let first = try #require(episodes?.first?["audioURL"] as? String)
            let second = try #require(episodes?.dropFirst().first?["audioURL"] as? String)

            // feedsh -> mygpoclient: the play to the end, with feedsh's device.
            let read = try await Self.mygpo(["read"] + account)
            let actions = try #require(try JSONSerialization.jsonObject(with: Data(read.utf8)) as? [[String: Any]])
            let play = try #require(actions.first { $0["episode"] as? String == first })
            #expect(play["podcast"] as? String == feed)
            #expect(play["action"] as? String == "play")
            #expect(play["device"] as? String == "laptop")
            #expect(play["position"] as? Int == play["total"] as? Int && (play["total"] as? Int ?? 0) > 0, "\(play)")
            #expect(try await Self.mygpo(["subscriptions"] + account + ["laptop"]).contains(feed))

            // mygpoclient -> feedsh: gPodder's timestamp (no zone), merged.
            let later = Date().addingTimeInterval(5)
            let stamp = String(ISO8601DateFormatter().string(from: later).dropLast())
            let upload = """
                [{"podcast": "\(feed)", "episode": "\(second)", "action": "play", "device": "gpodder",
                  "timestamp": "\(stamp)", "started": 30, "position": 95, "total": 300}]
                """
            _ = try await Self.mygpo(["upload"] + account + [upload])
            let merged = try await runFeedsh(["--json", "-c", "sync; podcast 1; episodes"], environment: environment)
            #expect(merged.status == 0, "\(merged.standardError)")
            let mergedLines = merged.standardOutput.split(separator: "\n")
            #expect(mergedLines.first?.contains(#""episodesChanged":1"#) == true, "\(merged.standardOutput)")
            let after =
                try #require(
                    try JSONSerialization.jsonObject(with: Data(mergedLines.last!.utf8)) as? [String: Any]
                )["result"] as? [[String: Any]]
            let moved = try #require(after?.first { $0["audioURL"] as? String == second })
            #expect(moved["position"] as? Double == 95, "\(moved)")
            #expect(moved["played"] as? Bool == false)
        }
    }

    /// kill -9 while a sync uploads 2 pages: the next sync sends the rest. Nothing
    /// is lost, and only the page that was in flight (stored, not yet
    /// acknowledged) can reach the server twice. Against the fixture server's sync
    /// API, each request held 300 ms, so that the kill lands between pages on any
    /// build (the release build sent all of its pages to opodsync before a poll saw one). Small
    /// enough to leave the CPU to the terminal tests running beside it.
    @Test func killedMidSyncLosesNothing() async throws {
        try await withServerAndFolder { server, root in
            let environment = syncEnvironment(root)
            let count = 2_000
            let feed = server.baseURL.absoluteString + "/feeds/generate?n=\(count)&words=3"
            let slow = server.baseURL.appendingPathComponent("fault/delay=300").absoluteString
            let prepared = try await runFeedsh(
                ["-c", "subscribe \(feed); mark played 1:1-\(count); sync login \(slow) alice"],
                environment: environment,
                timeout: .seconds(300)
            )
            #expect(prepared.status == 0, "\(prepared.standardError)")
            let home = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: home) }
            let process = try launchFeedsh(["-c", "sync"], environment: environment, home: home)
            // Killed once the server holds some of the actions but not all.
            let deadline = ContinuousClock.now + .seconds(120)
            var held = 0
            while process.isRunning, ContinuousClock.now < deadline {
                held = server.syncState(user: "alice").actions
                if held > 0 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            kill(process.processIdentifier, SIGKILL)
            _ = await waitForExit(process, timeout: .seconds(10))
            #expect(process.terminationReason == .uncaughtSignal, "the sync ended before it could be killed")
            #expect(held > 0 && held < count, "\(held) of \(count) actions were on the server at the kill")

            let again = try await runFeedsh(
                ["--json", "-c", "sync; sync status"],
                environment: environment,
                timeout: .seconds(300)
            )
            #expect(again.status == 0, "\(again.standardError)")
            #expect(
                again.standardOutput.contains(#""outbox":{"actions":0,"subscriptions":0}"#),
                "\(again.standardOutput)"
            )
            let stored = server.syncState(user: "alice").actions
            #expect(stored >= count, "lost \(count - stored) actions")
            #expect(stored <= count + 1000, "sent \(stored - count) actions twice")
        }
    }

    /// Two feedsh processes syncing one library at once: the second waits for
    /// the first (the library's sync lock), then finds the outbox empty, so the
    /// server gets each action once. Each request is held 300 ms, so the two
    /// overlap on any build; before the lock, both sent all of them.
    @Test func twoProcessesSyncingOneLibrarySendEachActionOnce() async throws {
        try await withServerAndFolder { server, root in
            let environment = syncEnvironment(root)
            let count = 1_500
            let feed = server.baseURL.absoluteString + "/feeds/generate?n=\(count)&words=3"
            let slow = server.baseURL.appendingPathComponent("fault/delay=300").absoluteString
            let prepared = try await runFeedsh(
                ["-c", "subscribe \(feed); mark played 1:1-\(count); sync login \(slow) alice"],
                environment: environment,
                timeout: .seconds(300)
            )
            #expect(prepared.status == 0, "\(prepared.standardError)")
            async let first = runFeedsh(["--json", "-c", "sync"], environment: environment, timeout: .seconds(120))
            async let second = runFeedsh(["--json", "-c", "sync"], environment: environment, timeout: .seconds(120))
            let results = try await [first, second]
            #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.standardError))")
            let sent = results.map { $0.standardOutput.contains(#""play":\#(count)"#) }
            #expect(sent.filter { $0 }.count == 1, "\(results.map(\.standardOutput))")
            #expect(server.syncState(user: "alice").actions == count)
        }
    }

    /// opodsync, the fixture server and a folder for the length of `body`, with
    /// the environment of a feedsh whose library is in that folder.
    func withSyncServer(
        _ body: (Opodsync, FixtureServer, URL, [String: String]) async throws -> Void
    ) async throws {
        let sync = try await Opodsync.start()
        defer { sync.stop() }
        try await withServerAndFolder { server, root in
            try await body(sync, server, root, syncEnvironment(root, password: sync.password))
        }
    }
}
