import FixtureServer
import Foundation
import Testing

/// A broken or hostile server against the binary (`make test` runs these on the
/// release build too): never a crash, each failure that feed's or that download's.
@Suite("A broken server and the binary", .serialized)
struct BrokenServerProcessTests {
    typealias Scene = LibraryProcessTests.Scene

    /// A body cut short, over the limit with and without a length, a gzip bomb, a
    /// reset mid-body: `subscribe` exits 1 with the reason, never a crash; with
    /// `--json` the error is a JSON line.
    @Test(arguments: [
        ("/fault/short=120000/feeds/1386867488.xml", "truncated-body", "ended after"),
        ("/fault/drop=1500/feeds/1386867488.xml", "truncated-body", "ended after"),
        ("/feeds/huge.xml?mb=65", "body-too-large", "larger than 64 MiB"),
        ("/fault/nolength/feeds/huge.xml?mb=65", "body-too-large", "larger than 64 MiB"),
        ("/feeds/bomb.xml", "decompressed-too-large", "decompresses past 64 MiB"),
        // A feed its publisher took down: refused as a 404 is, not "0 episodes".
        ("/feeds/gone.xml", "http-status", "HTTP 410 Gone"),
    ])
    func aBrokenFeedIsAnErrorNotACrash(path: String, code: String, words: String) async throws {
        try await Scene.with { scene in
            let plain = try await scene.run("subscribe \(scene.base)\(path)")
            #expect(!plain.signalled && plain.status == 1, "\(plain.status) \(plain.standardError)")
            #expect(plain.standardError.contains(words), "\(plain.standardError)")
            #expect(!plain.standardError.contains("crashed"))
            let json = try await scene.run("subscribe \(scene.base)\(path)", json: true)
            #expect(json.status == 1)
            let line = try #require(json.standardOutput.split(separator: "\n").last)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let error = object?["error"] as? [String: Any]
            #expect(error?["code"] as? String == code, "\(line)")
            // No subscription was left behind.
            let podcasts = try await scene.run("podcasts")
            #expect(podcasts.standardOutput.contains("no subscriptions"), "\(podcasts.standardOutput)")
        }
    }

    /// Ctrl-C (SIGINT) during a first `subscribe`: "interrupted", exit 130, and no
    /// empty subscription left ("never" updated, 0 episodes), nothing for sync.
    @Test func anInterruptedSubscribeLeavesNoSubscription() async throws {
        try await Scene.with { scene in
            _ = try await Self.interrupt("subscribe \(scene.base)/fault/delay=5000/feeds/1386867488.xml", scene)
            let podcasts = try await scene.run("podcasts")
            #expect(podcasts.standardOutput.contains("no subscriptions"), "\(podcasts.standardOutput)")
        }
    }

    /// Six feeds, the fourth cut off: the others are updated, the fourth's error is
    /// in the summary, the JSON and `podcasts`, the next `update` runs again, and
    /// the run ends with status 3 (every command ran, a feed was not read).
    @Test func oneBrokenFeedDoesNotStopAnUpdate() async throws {
        try await Scene.with { scene in
            let paths = [
                "/feeds/1386867488.xml", "/feeds/1000000001.xml", "/feeds/1000000002.xml",
                "/fault/after=1,changes=1,drop=1500/feeds/1000000004.xml", "/feeds/paged.xml", "/feeds/listening.xml",
            ]
            for path in paths {
                _ = try await scene.run("subscribe \(scene.base)\(path)")
            }
            for _ in 0..<2 {
                let update = try await scene.run("update", json: true)
                #expect(!update.signalled, "\(update.standardError)")
                // Every feed it could read is read; the status tells cron one was not.
                #expect(update.status == 3, "\(update.standardError)")
                let lines = update.standardOutput.split(separator: "\n")
                let results = try lines.compactMap { line -> [[String: Any]]? in
                    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    return object?["result"] as? [[String: Any]]
                }.last
                let statuses = try #require(results).map { $0["status"] as? String }
                #expect(statuses.count == 6)
                #expect(statuses.filter { $0 == "failed" }.count == 1, "\(update.standardOutput)")
                let failed = try #require(results?.first { $0["status"] as? String == "failed" })
                #expect((failed["error"] as? String)?.contains("ended after") == true)
            }
            // The script goes on after it (`update; get new` in cron), and ends with 3.
            let podcasts = try await scene.run("update; podcasts")
            #expect(podcasts.status == 3 && podcasts.standardOutput.contains("ended after"))
        }
    }

    /// A library a newer feedsh wrote: refused with exit 1, left as it was.
    @Test func aNewerLibraryIsRefused() async throws {
        try await Scene.with { scene in
            _ = try await scene.run("subscribe \(scene.base)/feeds/1386867488.xml")
            let path = scene.root.appendingPathComponent("library.sqlite").path
            // What the WAL still holds goes into the file first (by SQLite, through
            // Python's sqlite3): a page 1 left in the WAL would hide the change.
            try checkpointWAL(path)
            // user_version lives in bytes 60-63 of the header.
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.seek(toOffset: 60)
            handle.write(Data([0, 0, 0, 99]))
            try handle.close()
            let before = FileManager.default.contents(atPath: path)
            let result = try await scene.run("podcasts")
            #expect(result.status == 1)
            #expect(result.standardError.contains("this library was written by a newer feedsh (schema v99)"))
            // The shell's advice, added by the error's code.
            #expect(result.standardError.contains("use that feedsh, or another library (--library)"))
            #expect(FileManager.default.contents(atPath: path) == before)
        }
    }

    /// A line that never ends is refused at once.
    @Test func aScriptOfEndlessZerosEnds() async throws {
        let result = try await runFeedsh(["-f", "/dev/zero"], timeout: .seconds(30))
        #expect(!result.signalled && result.status != 0)
        #expect(result.standardError.contains("longer than"), "\(result.standardError)")
    }

    /// `file:` and `javascript:` episode URLs never reach `get` or the player.
    @Test func hostileEpisodeLinksAreLeftOut() async throws {
        try await Scene.with { scene in
            let result = try await scene.run("lookup 1000000005; episodes")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("An honest episode"))
            #expect(!result.standardOutput.contains("A local file"))
            #expect(result.standardError.contains("is not an http or https URL"), "\(result.standardError)")
        }
    }

    /// `--max-filesize`: a larger download fails, says why and leaves nothing; the
    /// `max-size` setting does the same when no flag is given, and `set` says which
    /// applies.
    @Test func aDownloadPastTheMaximumSizeLeavesNothing() async throws {
        try await Scene.with { scene in
            let flag = try await runFeedsh(
                ["--max-filesize", "100k", "-c", "lookup; get 1; wait"],
                environment: scene.environment
            )
            #expect(flag.status == 1)
            #expect(flag.standardError.contains("is larger than 100 KiB"), "\(flag.standardError)")
            let shown = try await runFeedsh(["--max-filesize", "100k", "-c", "set"], environment: scene.environment)
            #expect(shown.standardOutput.contains("100k"), "\(shown.standardOutput)")
            #expect(shown.standardOutput.contains("--max-filesize"))
            let setting = try await scene.run("set max-size 200k; lookup; get 2; wait")
            #expect(setting.status == 1)
            #expect(setting.standardError.contains("is larger than 200 KiB"), "\(setting.standardError)")
            let leftovers =
                FileManager.default.enumerator(at: scene.downloads, includingPropertiesForKeys: nil)?
                .allObjects as? [URL] ?? []
            #expect(leftovers.filter { !$0.hasDirectoryPath }.isEmpty, "\(leftovers)")
            let bad = try await runFeedsh(["--max-filesize", "huge", "-c", "set"], environment: scene.environment)
            #expect(bad.status == 2)
        }
    }

    /// Ctrl-C (SIGINT) during `update`: "interrupted", exit 130, and no feed that
    /// was not read gets an error recorded.
    @Test func anInterruptedUpdateRecordsNoFailure() async throws {
        try await Scene.with { scene in
            let outlines = (1...6).map {
                "<outline type=\"rss\" text=\"slow \($0)\" xmlUrl=\"\(scene.base)/fault/delay=3000/feeds/1386867488.xml?copy=\($0)\"/>"
            }.joined(separator: "\n")
            let list = scene.root.appendingPathComponent("slow.opml")
            try "<opml version=\"2.0\"><body>\n\(outlines)\n</body></opml>\n".write(
                to: list,
                atomically: true,
                encoding: .utf8
            )
            #expect(try await scene.run("import \(list.path)").status == 0)
            let stderr = try await Self.interrupt("update", scene)
            #expect(!stderr.contains("CancellationError"), "\(stderr)")
            let podcasts = try await scene.run("podcasts", json: true)
            let object = try JSONSerialization.jsonObject(with: Data(podcasts.standardOutput.utf8)) as? [String: Any]
            let all = try #require(object?["result"] as? [[String: Any]])
            #expect(all.count == 6)
            #expect(all.allSatisfy { $0["error"] is NSNull }, "\(all.map { $0["error"] ?? "" })")
        }
    }

    /// Runs `command` and sends SIGINT once the server has had its first request
    /// (the command is then waiting on the network): it must say "interrupted"
    /// and exit 130. Returns its standard error.
    static func interrupt(_ command: String, _ scene: Scene) async throws -> String {
        let errors = Pipe()
        let process = try launchFeedsh(
            ["-c", command],
            environment: scene.environment,
            home: scene.root,
            errors: errors
        )
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, scene.server.requests.isEmpty {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))
        kill(process.processIdentifier, SIGINT)
        #expect(await waitForExit(process, timeout: .seconds(15)))
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("interrupted"), "\(stderr)")
        return stderr
    }
}
