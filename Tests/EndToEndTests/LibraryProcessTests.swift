import FixtureData
import FixtureServer
import Foundation
import Testing

/// The library through the binary: subscriptions, updates, new episodes and their
/// downloads, crashes and two processes at once.
@Suite("Podcast library", .serialized)
struct LibraryProcessTests {
    /// A fixture server and a folder for the library and downloads.
    struct Scene {
        let server: FixtureServer
        let root: URL
        var base: String { server.baseURL.absoluteString }
        var downloads: URL { root.appendingPathComponent("downloads") }
        var environment: [String: String] {
            [
                "FEEDSH_ITUNES_URL": base, "FEEDSH_DOWNLOAD_DIR": downloads.path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
            ]
        }

        static func with(_ body: (Scene) async throws -> Void) async throws {
            try await withServerAndFolder { server, root in try await body(Scene(server: server, root: root)) }
        }

        func run(_ commands: String, json: Bool = false) async throws -> FeedshResult {
            try await runFeedsh((json ? ["--json"] : []) + ["-c", commands], environment: environment)
        }

        /// Every `.mp3` under the download folder.
        func files() -> [URL] {
            let walker = FileManager.default.enumerator(at: downloads, includingPropertiesForKeys: nil)
            return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "mp3" }
        }
    }

    /// Commands that only read, run as a script, leave the library byte for byte
    /// as it was: one connection opens it without a write, and the WAL files its
    /// reads made go with it. (A pool's opening wrote a table and dropped it, and
    /// its closing folded that into the file, four syncs for a `podcasts`.)
    @Test func readingCommandsLeaveTheLibraryAsItWas() async throws {
        try await Scene.with { scene in
            let first = try await scene.run("subscribe \(scene.base)/feeds/1386867488.xml")
            #expect(first.status == 0, "\(first.standardError)")
            let path = scene.root.appendingPathComponent("library.sqlite").path
            let files = ["", "-wal", "-shm"].map { path + $0 }
            let before = files.map { FileManager.default.contents(atPath: $0) }
            #expect(before[0] != nil && before[1] == nil && before[2] == nil)
            let read = try await scene.run("podcasts; podcast 1; episodes --limit 2; new; find loopback; queue")
            #expect(read.status == 0, "\(read.standardError)")
            #expect(read.standardOutput.contains("Loopback Radio"))
            #expect(files.map { FileManager.default.contents(atPath: $0) } == before)
        }
    }

    @Test func subscribeUpdateNewGetNewWait() async throws {
        try await Scene.with { scene in
            let feed = "\(scene.base)/fault/changes=1/feeds/1386867488.xml"
            let first = try await scene.run("subscribe \(feed)")
            #expect(first.status == 0, "\(first.standardError)")
            #expect(first.standardOutput.contains("subscribed to Loopback Radio: 5 episodes"))
            // The cron line: the feed gained one episode since.
            let cron = try await scene.run("update; get new; wait")
            #expect(cron.status == 0, "\(cron.standardError)")
            #expect(cron.standardOutput.contains("Loopback Radio: 1 new episode"))
            #expect(cron.standardOutput.contains("downloading 1:1: Bonus episode 1"))
            let files = scene.files()
            #expect(files.count == 1)
            let expected = SyntheticMedia(key: "1386867488/bonus-1.mp3").allBytes
            #expect(try files.first.map { try Data(contentsOf: $0) } == Data(expected))
            // Feed-only podcasts and episodes get stable keys of their own.
            #expect(files.first?.path.contains("/feed-") == true)
            let listed = try await scene.run("new; podcasts", json: true)
            let lines = listed.standardOutput.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let new = try #require(lines.first?["result"] as? [[String: Any]])
            #expect(new.map { $0["title"] as? String } == ["Bonus episode 1"])
            #expect(new.first?["new"] as? Bool == true && new.first?["guid"] as? String == "feedsh-bonus-1386867488-1")
            let podcasts = try #require(lines.last?["result"] as? [[String: Any]])
            #expect(podcasts.first?["episodeCount"] as? Int == 6)
            #expect(podcasts.first?["downloadedCount"] as? Int == 1)
            // `mark old new` empties the list; a second `get new` has nothing to do.
            let marked = try await scene.run("mark old new; new; get new")
            #expect(marked.standardOutput.contains("marked 1 episode old\nno new episodes\nno new episodes"))
        }
    }

    /// A copy of the library file alone (a backup) holds every change once
    /// feedsh has exited: closing the last connection merges SQLite's
    /// write-ahead log into the file and removes it.
    @Test func theLibraryFileAloneHoldsEverythingAfterExit() async throws {
        try await Scene.with { scene in
            let subscribed = try await scene.run("subscribe \(scene.base)/feeds/1386867488.xml; mark played 1:1")
            #expect(subscribed.status == 0, "\(subscribed.standardError)")
            let file = scene.root.appendingPathComponent("library.sqlite")
            #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))
            // A copy of the file alone, opened elsewhere, has the subscription.
            let copy = scene.root.appendingPathComponent("backup").appendingPathComponent("library.sqlite")
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try FileManager.default.copyItem(at: file, to: copy)
            var environment = scene.environment
            environment["FEEDSH_LIBRARY"] = copy.path
            let listed = try await runFeedsh(["-c", "podcasts; podcast 1; episodes"], environment: environment)
            #expect(listed.standardOutput.contains("Loopback Radio"), "\(listed.standardOutput)")
            #expect(listed.standardOutput.contains("played"), "\(listed.standardOutput)")
        }
    }

    @Test func appleSubscriptionsKeepAppleFileNamesAndSeeEarlierDownloads() async throws {
        try await Scene.with { scene in
            let before = try await scene.run("lookup; get 2; wait")
            #expect(before.status == 0, "\(before.standardError)")
            let after = try await scene.run("subscribe 1386867488; episodes; podcasts")
            #expect(after.status == 0, "\(after.standardError)")
            #expect(after.standardOutput.contains("subscribed to Loopback Radio: 5 episodes"))
            #expect(after.standardOutput.contains("downloaded  Range Requests: Resuming What Was Lost"))
            #expect(scene.files().map(\.lastPathComponent) == ["1000700000002.mp3"])
            // A bare `subscribe` after `lookup` subscribes to the loaded podcast: the same one.
            let again = try await scene.run("lookup; subscribe")
            #expect(again.standardOutput.contains("already subscribed to Loopback Radio"))
        }
    }

    @Test func opmlRoundTripAndBadEntries() async throws {
        try await Scene.with { scene in
            let input = scene.root.appendingPathComponent("in.opml")
            let fixture = try #require(FixtureFiles.all["opml/antennapod.opml"])
            try String(decoding: fixture, as: UTF8.self)
                .replacingOccurrences(of: "https://feeds.invalid/", with: scene.base + "/feeds/")
                .write(to: input, atomically: true, encoding: .utf8)
            let imported = try await scene.run("import \(input.path); update; podcasts")
            #expect(imported.status == 0, "\(imported.standardError)")
            #expect(imported.standardOutput.contains("imported 2 of 3 feeds (1 already subscribed or repeated)"))
            #expect(imported.standardOutput.contains("skipped outline"))
            #expect(imported.standardOutput.contains("Atom Loop") && imported.standardOutput.contains("Loopback Radio"))
            let output = scene.root.appendingPathComponent("out.opml")
            let exported = try await scene.run("export \(output.path)")
            #expect(exported.standardOutput.contains("exported 2 subscriptions"))
            let other = try await runFeedsh(
                ["-c", "import \(output.path); podcasts"],
                environment: scene.environment.merging(
                    ["FEEDSH_LIBRARY": scene.root.appendingPathComponent("other.sqlite").path]
                ) { $1 }
            )
            #expect(other.standardOutput.contains("imported 2 of 2 feeds"))
        }
    }

    @Test func aKilledUpdateLosesNothingDoneAndTwoProcessesShareALibrary() async throws {
        try await Scene.with { scene in
            // Forty slow feeds (all on one host: two at a time).
            let list = scene.root.appendingPathComponent("slow.opml")
            let outlines = (1...40).map {
                "<outline type=\"rss\" text=\"slow \($0)\" xmlUrl=\"\(scene.base)/fault/delay=150/feeds/1386867488.xml?copy=\($0)\"/>"
            }.joined(separator: "\n")
            try "<opml version=\"2.0\"><body>\n\(outlines)\n</body></opml>\n".write(
                to: list,
                atomically: true,
                encoding: .utf8
            )
            #expect(try await scene.run("import \(list.path)").status == 0)
            let child = try launchFeedsh(["-c", "update"], environment: scene.environment, home: scene.root)
            // Killed mid-update: once a few feeds were served (and stored), well
            // before the forty are. A deadline, so a regression fails here.
            let before = scene.server.requests.count
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline, scene.server.requests.count < before + 6 {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(scene.server.requests.count >= before + 6, "the update never got going")
            try await Task.sleep(for: .milliseconds(200))
            kill(child.processIdentifier, SIGKILL)
            #expect(await waitForExit(child, timeout: .seconds(10)))
            let after = try await scene.run("podcasts", json: true)
            #expect(after.status == 0, "\(after.standardError)")
            let object = try JSONSerialization.jsonObject(with: Data(after.standardOutput.utf8)) as? [String: Any]
            let podcasts = try #require(object?["result"] as? [[String: Any]])
            #expect(podcasts.count == 40)
            // Every feed stored before the kill is there whole: five episodes each.
            let updated = podcasts.filter { $0["updated"] is String }
            #expect(!updated.isEmpty && updated.count < 40)
            #expect(updated.allSatisfy { $0["episodeCount"] as? Int == 5 })
            // Two processes update the same library at once; both succeed.
            async let one = scene.run("update")
            async let two = scene.run("update")
            let (a, b) = try await (one, two)
            #expect(a.status == 0 && b.status == 0, "\(a.standardError)\(b.standardError)")
            let final = try await scene.run("podcasts", json: true)
            let all = try #require(
                (try JSONSerialization.jsonObject(with: Data(final.standardOutput.utf8)) as? [String: Any])?["result"]
                    as? [[String: Any]]
            )
            #expect(all.allSatisfy { $0["updated"] is String && $0["episodeCount"] as? Int == 5 })
        }
    }
}

extension LibraryProcessTests {
    /// Without flags, the demo keeps its library and downloads in a folder of its
    /// own, says where, and takes it away at exit: the real library (here the one
    /// the environment names) never sees a demo feed.
    @Test func theDemoIsADemo() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let real = root.appendingPathComponent("library.sqlite")
        let result = try await runFeedsh(
            ["--demo", "-c", "subscribe 1386867488; get 1; wait; podcasts"],
            environment: ["FEEDSH_LIBRARY": real.path, "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("d").path]
        )
        #expect(result.status == 0, "\(result.standardError)")
        let line = try #require(result.standardError.split(separator: "\n").first)
        #expect(line.contains("; library and downloads in ") && line.hasSuffix("(removed at exit)"), "\(line)")
        #expect(result.standardOutput.contains("Loopback Radio"))
        #expect(!FileManager.default.fileExists(atPath: real.path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("d").path))
        let folder = try #require(line.split(separator: " in ").last?.split(separator: " (").first)
        #expect(!FileManager.default.fileExists(atPath: String(folder)))
    }

    @Test func theDemoSubscribesUpdatesAndDownloadsOffline() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try await runFeedsh(
            [
                "--demo", "--download-dir", root.appendingPathComponent("d").path, "--library",
                root.appendingPathComponent("library.sqlite").path, "-c",
                "subscribe 1386867488; update; get 1; wait; show 1",
            ]
        )
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("subscribed to Loopback Radio: 5 episodes"))
        #expect(result.standardOutput.contains("1 feed: 0 read (0 new episodes), 1 unchanged"))
        #expect(result.standardOutput.contains("guid:   feedsh-1000700000001"))
        #expect(result.standardError.contains("downloaded 1 Ports, Sockets and the Art of Listening"))
        #expect(
            FileManager.default.fileExists(atPath: root.appendingPathComponent("d/1386867488/1000700000001.mp3").path)
        )
    }
}
