import FixtureServer
import Foundation
import SocketTestSupport
import Subprocess
import SystemPackage
import Testing

/// `feedsh serve` on the binary, read by clients nobody here wrote: gPodder's
/// podcastparser and Python's feedparser read its feeds, curl its files; and
/// feedsh itself subscribes to what it serves.
@Suite("Serve", .serialized)
struct ServeProcessTests {
    struct Scene {
        let server: FixtureServer
        let root: URL
        var base: String { server.baseURL.absoluteString }
        var downloads: URL { root.appendingPathComponent("downloads") }
        var environment: [String: String] {
            [
                "FEEDSH_DOWNLOAD_DIR": downloads.path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
            ]
        }

        /// A library subscribed to the habits feed with both episodes downloaded
        /// and the gapped one queued.
        static func with(_ body: (Scene) async throws -> Void) async throws {
            try await withServerAndFolder(.init(mediaRate: nil)) { server, root in
                let scene = Scene(server: server, root: root)
                let setUp = try await runFeedsh(
                    ["-c", "subscribe \(scene.base)/feeds/habits.xml; get 1:1,2; wait; queue add 1:2"],
                    environment: scene.environment
                )
                #expect(setUp.status == 0, "\(setUp.standardError)")
                try await body(scene)
            }
        }

        /// The downloaded files, by name.
        func files() -> [String: URL] {
            let walker = FileManager.default.enumerator(at: downloads, includingPropertiesForKeys: nil)
            let files = (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "wav" }
            return Dictionary(files.map { ($0.lastPathComponent, $0) }) { first, _ in first }
        }
    }

    @Test func podcastAppsReadEveryFeedWithNothingMissing() async throws {
        try await Scene.with { scene in
            let serve = try LiveServe(environment: scene.environment)
            let url = try await serve.url()
            let all = try await Self.read(url + "feeds/all.xml")
            let gpodder = try #require(all["podcastparser"] as? [String: Any])
            let python = try #require(all["feedparser"] as? [String: Any])
            #expect(python["bozo"] as? Bool == false)
            let episodes = gpodder["episodes"] as? [[String: Any]] ?? []
            #expect(
                episodes.map { $0["title"] as? String } == [
                    "Sponsored: 40 seconds", "Gap: 30 seconds, silent from 5 to 15",
                ]
            )
            #expect(episodes.map { $0["guid"] as? String } == ["habits-sponsored", "habits-gap"])
            #expect(episodes.map { $0["seconds"] as? Int } == [40, 30])
            let files = scene.files()
            for episode in episodes {
                let enclosure = try #require((episode["enclosures"] as? [[String: Any]])?.first)
                let link = try #require(enclosure["url"] as? String)
                #expect(link.hasPrefix(url + "media/"))
                let file = try #require(files[(link as NSString).lastPathComponent])
                let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
                #expect(enclosure["length"] as? Int == size)
                #expect(enclosure["type"] as? String == "audio/wav")
            }
            let entries = python["episodes"] as? [[String: Any]] ?? []
            #expect(entries.first?["chapters"] as? String == "\(scene.base)/chapters/sponsored.json")
            #expect(entries.first?["transcript"] as? String == "\(scene.base)/transcripts/sponsored.vtt")
            #expect(entries.map { $0["duration"] as? String } == ["40", "30"])

            let one = try await Self.read(url + "feeds/1.xml")
            #expect((one["podcastparser"] as? [String: Any])?["title"] as? String == "Listening Habits")
            let queue = try await Self.read(url + "feeds/queue.xml")
            let queued = ((queue["feedparser"] as? [String: Any])?["episodes"] as? [[String: Any]])?.map {
                $0["guid"] as? String
            }
            #expect(queued == ["habits-gap"])
            let opml = try await Self.curl(["-s", url + "subscriptions.opml"])
            #expect(opml.contains("xmlUrl=\"\(scene.base)/feeds/habits.xml\""))
            #expect(try await Self.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", url + "feeds/7.xml"]) == "404")
            // DNS rebinding: another site's name resolved to 127.0.0.1 is refused.
            let rebound = try await Self.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: rebind.attacker.example",
                url + "subscriptions.opml",
            ])
            #expect(rebound == "421")
            #expect(try await serve.stop() == 0)
            // One line per request.
            let lines = jsonLines(serve.text).filter { $0["event"] as? String == "request" }
            #expect(lines.contains { $0["path"] as? String == "/feeds/all.xml" && $0["status"] as? Int == 200 })
        }
    }

    @Test func filesAreServedInRangesAndNothingElseIs() async throws {
        try await Scene.with { scene in
            let serve = try LiveServe(environment: scene.environment)
            let url = try await serve.url()
            let file = try #require(
                scene.files().values.first { $0.lastPathComponent.contains("4b5d") } ?? scene.files().values.first
            )
            let bytes = try Data(contentsOf: file)
            let media =
                url + "media/" + file.deletingLastPathComponent().lastPathComponent + "/" + file.lastPathComponent
            let whole = root(scene).appendingPathComponent("whole.wav")
            _ = try await Self.curl(["-s", "-o", whole.path, media])
            #expect(try Data(contentsOf: whole) == bytes)
            func code(_ arguments: [String]) async throws -> String {
                try await Self.curl(["-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"] + arguments)
            }
            #expect(try await code(["-r", "0-0", media]) == "206 1")
            #expect(try await code(["-r", "\(bytes.count - 1)-", media]) == "206 1")
            #expect(try await code(["-r", "-100", media]) == "206 100")
            #expect(try await code(["-r", "\(bytes.count)-", media]) == "416 0")
            let tail = root(scene).appendingPathComponent("tail.bin")
            _ = try await Self.curl(["-s", "-r", "-4", "-o", tail.path, media])
            #expect(try Data(contentsOf: tail) == bytes.suffix(4))
            let head = try await Self.curl(["-s", "-I", media])
            #expect(head.contains("Content-Length: \(bytes.count)"))
            let tag = try #require(
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(6)
            )
            #expect(try await code(["-H", "If-None-Match: \(tag)", media]) == "304 0")
            #expect(try await code(["-r", "0-9", "-H", "If-Range: \(tag)", media]) == "206 10")
            #expect(try await code(["-r", "0-9", "-H", "If-Range: \"changed\"", media]) == "200 \(bytes.count)")
            // An unchanged feed costs a 304.
            let feedTag = try await Self.curl(["-s", "-I", url + "feeds/all.xml"]).split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(6)
            #expect(try await code(["-H", "If-None-Match: \(feedTag ?? "")", url + "feeds/all.xml"]) == "304 0")
            // No .part, no way out of the folder, no link.
            let folder = file.deletingLastPathComponent()
            try Data("partial".utf8).write(to: folder.appendingPathComponent("next.wav.part"))
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent("link.wav"),
                withDestinationURL: root(scene).appendingPathComponent("library.sqlite")
            )
            let podcastFolder = folder.lastPathComponent
            for path in [
                "media/\(podcastFolder)/next.wav.part", "media/\(podcastFolder)/link.wav", "media/../library.sqlite",
                "media/%2e%2e/library.sqlite", "media/\(podcastFolder)%2F..%2F..%2Flibrary.sqlite",
                "media/\(podcastFolder)/..%2F..%2Flibrary.sqlite", "media/\(podcastFolder)",
            ] {
                #expect(try await code(["--path-as-is", url + path]) == "404 0", "\(path)")
            }
            #expect(try await serve.stop() == 0)
        }
    }

    /// With the usual 1,024 open files, 1,100 connections that send nothing
    /// once stopped it answering anyone (and it later died of SIGILL). Past its
    /// limit (half the open files) the connection inactive longest is closed:
    /// a feed asked for after the flood is answered, and the server stops
    /// cleanly.
    @Test func elevenHundredIdleConnectionsDoNotStopItAnswering() async throws {
        try await Scene.with { scene in
            let serve = try LiveServe(environment: scene.environment, openFiles: 1024)
            let url = try await serve.url()
            let port = try #require(URL(string: url)?.port)
            // This test's own sockets: past its soft limit, up to the hard one.
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            if limit.rlim_cur < 2048 {
                limit.rlim_cur = min(2048, limit.rlim_max)
                setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            }
            var flood: [Int32] = []
            defer { flood.forEach { close($0) } }
            for _ in 0..<1100 {
                guard let socket = loopbackConnection(port: port) else { break }
                flood.append(socket)
            }
            #expect(flood.count == 1100)
            try await Task.sleep(for: .milliseconds(500))
            let answer = try await Subprocess.run(
                .name("curl"),
                arguments: ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", url + "feeds/all.xml"],
                output: .string(limit: 1 << 16)
            )
            #expect(answer.standardOutput == "200")
            #expect(try await serve.stop() == 0)
        }
    }

    /// 200 clients that ask for a large file and stop reading hold a chunk or
    /// two each, not a read-ahead: they took serve's anonymous memory up by about
    /// 0.9-1.4 GB on a 20 MB file, now by tens of MiB; it still answers, the
    /// file still comes whole, and a stop does not wait on them past 5 s.
    @Test func clientsThatStopReadingCostLittleMemory() async throws {
        try await Scene.with { scene in
            let folder = try #require(scene.files().values.first).deletingLastPathComponent()
            let big = folder.appendingPathComponent("big.wav")
            try Data((0..<20_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: big)
            let serve = try LiveServe(environment: scene.environment)
            let url = try await serve.url()
            let port = try #require(URL(string: url)?.port)
            let before = try #require(Self.anonymousMemory(of: serve.pid))
            let path = "/media/\(folder.lastPathComponent)/big.wav"
            var stalled: [Int32] = []
            defer { stalled.forEach { close($0) } }
            for _ in 0..<200 {
                guard let socket = loopbackConnection(port: port, receiveBuffer: 4096) else { break }
                let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                _ = write(socket, request, request.utf8.count)
                stalled.append(socket)
            }
            #expect(stalled.count == 200)
            try await Task.sleep(for: .seconds(3))
            let during = try #require(Self.anonymousMemory(of: serve.pid))
            #expect(during - before < 128 << 20, "anonymous memory grew by \((during - before) >> 20) MiB")
            // Meanwhile a client that reads gets the whole file.
            let copy = scene.root.appendingPathComponent("copy.wav")
            let fetched = try await Subprocess.run(
                .name("curl"),
                arguments: ["-s", "--max-time", "20", "-o", copy.path, url + String(path.dropFirst())],
                output: .discarded
            )
            #expect(fetched.terminationStatus.isSuccess)
            #expect(try Data(contentsOf: copy) == Data(contentsOf: big))
            // A stop with the 200 still connected: answers in flight get 5 s,
            // then they are closed (it waited 30 s, and the harness gave up first).
            let stopping = ContinuousClock.now
            #expect(try await serve.stop() == 0)
            #expect(ContinuousClock.now - stopping < .seconds(12), "\(ContinuousClock.now - stopping)")
        }
    }

    /// `/feeds/playlist/NAME.xml` serves a smart playlist's downloaded episodes
    /// in its order, read by gPodder's podcastparser and feedparser; a name
    /// that is none is 404.
    /// `--library` and `--download-dir` after `serve` or `mcp` choose what they
    /// serve, over the environment (ArgumentParser gave them to the root
    /// command, and both served the environment's library instead).
    @Test func theLibraryAndFolderGivenAsFlagsAreTheOnesServed() async throws {
        try await Scene.with { scene in
            let elsewhere = [
                "FEEDSH_LIBRARY": scene.root.appendingPathComponent("other.sqlite").path,
                "FEEDSH_DOWNLOAD_DIR": scene.root.appendingPathComponent("other").path,
            ]
            let flags = [
                "--library", scene.environment["FEEDSH_LIBRARY"] ?? "", "--download-dir", scene.downloads.path,
            ]
            let serve = try LiveServe(environment: elsewhere, extra: flags)
            let url = try await serve.url()
            let feed = try await Self.curl(["-s", url + "feeds/1.xml"])
            #expect(feed.contains("<title>Sponsored: 40 seconds</title>"), "\(feed)")
            #expect(feed.components(separatedBy: "<enclosure ").count == 3)
            #expect(try await serve.stop() == 0)
            // --json after the flags still logs JSON.
            #expect(jsonLines(serve.text).contains { $0["path"] as? String == "/feeds/1.xml" })

            let requests = [
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
                #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"subscriptions","arguments":{}}}"#,
            ]
            let mcp = try await runFeedsh(
                ["mcp"] + flags,
                environment: elsewhere,
                standardInput: requests.joined(separator: "\n") + "\n",
                timeout: .seconds(30)
            )
            #expect(mcp.status == 0, "\(mcp.standardError)")
            #expect(mcp.standardOutput.contains("Listening Habits"), "\(mcp.standardOutput)")
            #expect(!FileManager.default.fileExists(atPath: elsewhere["FEEDSH_LIBRARY"] ?? ""))
        }
    }

    @Test func aSmartPlaylistIsAFeed() async throws {
        try await Scene.with { scene in
            let saved = try await runFeedsh(
                ["-c", "playlist add long longer:35s; playlist add all2 unplayed sort:shortest"],
                environment: scene.environment
            )
            #expect(saved.status == 0, "\(saved.standardError)")
            let serve = try LiveServe(environment: scene.environment)
            let url = try await serve.url()
            let long = try await Self.read(url + "feeds/playlist/long.xml")
            let parsed = try #require(long["podcastparser"] as? [String: Any])
            #expect(
                (parsed["episodes"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Sponsored: 40 seconds"]
            )
            #expect((long["feedparser"] as? [String: Any])?["bozo"] as? Bool == false)
            let shortest = try await Self.read(url + "feeds/playlist/ALL2.xml")
            // In the playlist's order, as the document gives it (podcastparser sorts by date).
            let titles = ((shortest["feedparser"] as? [String: Any])?["episodes"] as? [[String: Any]])?.map {
                $0["title"] as? String
            }
            #expect(titles == ["Gap: 30 seconds, silent from 5 to 15", "Sponsored: 40 seconds"])
            let missing = try await Subprocess.run(
                .name("curl"),
                arguments: ["-s", "-o", "/dev/null", "-w", "%{http_code}", url + "feeds/playlist/none.xml"],
                output: .string(limit: 1 << 16)
            )
            #expect(missing.standardOutput == "404")
            #expect(try await serve.stop() == 0)
        }
    }

    /// `RssAnon` of process `pid`, in bytes.
    static func anonymousMemory(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kib * 1024
    }

    @Test func beyondLoopbackAPasswordIsRequiredAndAsked() async throws {
        try await Scene.with { scene in
            let refused = try await runFeedsh(["serve", "--listen", "0.0.0.0:0"], environment: scene.environment)
            #expect(refused.status == 2)
            #expect(refused.standardError.contains("without a password: set FEEDSH_SERVE_PASSWORD"))
            // The environment's password is held to the setting's rule, and a
            // name is judged by the address it resolves to.
            var weak = scene.environment
            weak["FEEDSH_SERVE_PASSWORD"] = "x"
            let short = try await runFeedsh(["serve", "--listen", "0.0.0.0:0"], environment: weak)
            #expect(
                short.status == 2 && short.standardError.contains("at least 8 characters"),
                "\(short.standardError)"
            )
            let unknown = try await runFeedsh(["serve", "--listen", "feeds.invalid:0"], environment: scene.environment)
            #expect(unknown.status == 2 && unknown.standardError.contains("resolves to no address"))
            var environment = scene.environment
            environment["FEEDSH_SERVE_PASSWORD"] = "correct horse"
            let serve = try LiveServe(environment: environment, listen: "0.0.0.0:0")
            let port = try #require(URL(string: try await serve.url())?.port)
            let url = "http://127.0.0.1:\(port)/"
            for path in ["feeds/all.xml", "feeds/1.xml", "feeds/queue.xml", "subscriptions.opml", "media/x/y.wav"] {
                let code = try await Self.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", url + path])
                #expect(code == "401", "\(path)")
                let wrong = try await Self.curl([
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "-u", "me:wrong", url + path,
                ])
                #expect(wrong == "401", "\(path)")
            }
            let read = try await Self.read(url + "feeds/all.xml", user: "anyone", password: "correct horse")
            #expect(((read["podcastparser"] as? [String: Any])?["episodes"] as? [Any])?.count == 2)
            #expect(try await serve.stop() == 0)
            #expect(!serve.text.contains("correct horse"))
        }
    }

    /// feedsh subscribes to the feed it serves and gets the same episodes, and a
    /// file downloaded from it is the same bytes.
    @Test func feedshSubscribedToItsOwnFeedGetsTheSameEpisodes() async throws {
        try await Scene.with { scene in
            let serve = try LiveServe(environment: scene.environment)
            let url = try await serve.url()
            let other = scene.root.appendingPathComponent("other")
            let environment = [
                "FEEDSH_DOWNLOAD_DIR": other.appendingPathComponent("downloads").path,
                "FEEDSH_LIBRARY": other.appendingPathComponent("library.sqlite").path,
            ]
            let result = try await runFeedsh(
                ["--json", "-c", "subscribe \(url)feeds/1.xml; episodes; get 2; wait"],
                environment: environment
            )
            #expect(result.status == 0, "\(result.standardError)")
            let lines = jsonLines(result.standardOutput)
            let episodes = lines.first { $0["command"] as? String == "episodes" }?["result"] as? [[String: Any]] ?? []
            #expect(
                episodes.map { $0["title"] as? String } == [
                    "Sponsored: 40 seconds", "Gap: 30 seconds, silent from 5 to 15",
                ]
            )
            #expect(episodes.map { $0["guid"] as? String } == ["habits-sponsored", "habits-gap"])
            let walker = FileManager.default.enumerator(
                at: other.appendingPathComponent("downloads"),
                includingPropertiesForKeys: nil
            )
            let got = try #require((walker?.allObjects as? [URL])?.first { $0.pathExtension == "wav" })
            // Episode 2 of both is the 30 s gapped tone: 16,000 bytes a second and a header.
            let original = try #require(
                scene.files().values.first { (try? Data(contentsOf: $0).count) == 30 * 16_000 + 44 }
            )
            #expect(try Data(contentsOf: got) == Data(contentsOf: original))
            #expect(try await serve.stop() == 0)
        }
    }

    /// `--update-every` updates on schedule; SIGTERM during the run ends it with
    /// status 0 and the library as it was written.
    @Test func scheduledUpdatesRunBesideTheServerAndStopCleanly() async throws {
        try await Scene.with { scene in
            let serve = try LiveServe(environment: scene.environment, extra: ["--update-every", "1s"])
            _ = try await serve.url()
            let update = try await serve.waitFor { $0["event"] as? String == "update" }
            #expect(update["podcasts"] as? Int == 1)
            #expect(update["failed"] as? Int == 0)
            #expect(try await serve.stop() == 0)
            let check = try await runFeedsh(["-c", "podcasts"], environment: scene.environment)
            #expect(check.status == 0)
            #expect(check.standardOutput.contains("Listening Habits"))
        }
    }

    /// SIGTERM while a scheduled update waits on a slow feed: the update finishes
    /// and writes what it read, then the server exits 0.
    @Test func sigtermDuringAnUpdateLetsItFinish() async throws {
        try await Scene.with { scene in
            let slow = try await runFeedsh(
                ["-c", "subscribe \(scene.base)/fault/delay=2500/feeds/listening.xml"],
                environment: scene.environment
            )
            #expect(slow.status == 0, "\(slow.standardError)")
            let serve = try LiveServe(environment: scene.environment, extra: ["--update-every", "1s"])
            _ = try await serve.url()
            // The first update starts a second in and waits 2.5 s for the slow feed.
            try await Task.sleep(for: .milliseconds(1800))
            #expect(jsonLines(serve.text).allSatisfy { $0["event"] as? String != "update" }, "\(serve.text)")
            #expect(try await serve.stop() == 0)
            let update = try #require(jsonLines(serve.text).first { $0["event"] as? String == "update" })
            #expect(update["podcasts"] as? Int == 2)
            #expect(update["failed"] as? Int == 0)
            let podcasts = try await runFeedsh(["--json", "-c", "podcasts"], environment: scene.environment)
            let listed = jsonLines(podcasts.standardOutput).last?["result"] as? [[String: Any]] ?? []
            #expect(listed.count == 2)
            #expect(listed.allSatisfy { $0["error"] is NSNull || $0["error"] == nil }, "\(listed)")
        }
    }

    /// newsboat reads the served feed and podboat, its podcast downloader,
    /// downloads an enclosure from `serve`, byte for byte.
    @Test(.enabled(if: podboatRuns, "newsboat's podboat is not installed"))
    func podboatDownloadsAnEnclosureByteExact() async throws {
        try await Scene.with { scene in
            let serve = try LiveServe(environment: scene.environment)
            let url = try await serve.url()
            let work = scene.root.appendingPathComponent("podboat")
            try FileManager.default.createDirectory(
                at: work.appendingPathComponent("dl"),
                withIntermediateDirectories: true
            )
            let urls = work.appendingPathComponent("urls")
            let config = work.appendingPathComponent("config")
            let cache = work.appendingPathComponent("cache.db")
            try Data((url + "feeds/all.xml\n").utf8).write(to: urls)
            try Data("download-path \"\(work.path)/dl\"\n".utf8).write(to: config)
            let reload = try await Subprocess.run(
                .name("newsboat"),
                arguments: ["-u", urls.path, "-c", cache.path, "-C", config.path, "-x", "reload"],
                environment: .inherit.updating(["HOME": work.path]),
                output: .string(limit: 1 << 16),
                error: .string(limit: 1 << 16)
            )
            #expect(reload.terminationStatus.isSuccess, "\(reload.standardError)")
            // The enclosure newsboat stored for the 40 s episode.
            let query = try await Subprocess.run(
                .name("python3"),
                arguments: [
                    "-c",
                    "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select enclosure_url from rss_item "
                        + "where title like 'Sponsored%'\").fetchone()[0])",
                    cache.path,
                ],
                output: .string(limit: 1 << 16),
                error: .string(limit: 1 << 16)
            )
            let enclosure = query.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(enclosure.hasPrefix(url + "media/"), "\(query.standardError)")
            let target = work.appendingPathComponent("dl/sponsored.wav")
            let queue = work.appendingPathComponent("queue")
            try Data("\(enclosure) \"\(target.path)\"\n".utf8).write(to: queue)
            let original = try #require(
                scene.files().values.first { (try? Data(contentsOf: $0).count) == 40 * 16_000 + 44 }
            )
            let expected = try Data(contentsOf: original)
            try await TmuxSession.with(command: { _ in ["podboat", "-C", config.path, "-q", queue.path, "-a"] }) {
                session in
                try await session.waitForScreen { screen in
                    screen.contains("100.0 %") && (try? Data(contentsOf: target).count) == expected.count
                }
                session.keys("q")
            }
            #expect(try Data(contentsOf: target) == expected)
            #expect(try await serve.stop() == 0)
        }
    }

    private func root(_ scene: Scene) -> URL { scene.root }

    static func read(_ url: String, user: String? = nil, password: String? = nil) async throws -> [String: Any] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python = root.appendingPathComponent(".build-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw ServeTestError("no \(python.path): 'make test-deps' makes the venv with feedparser and podcastparser")
        }
        var arguments = [root.appendingPathComponent("Scripts/read-feed.py").path, url]
        if let user, let password { arguments += [user, password] }
        let result = try await Subprocess.run(
            .path(FilePath(python.path)),
            arguments: Arguments(arguments),
            output: .string(limit: 1 << 20),
            error: .string(limit: 1 << 16)
        )
        guard result.terminationStatus.isSuccess,
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        else { throw ServeTestError("read-feed.py \(url): \(result.standardError)") }
        return object
    }

    static func curl(_ arguments: [String]) async throws -> String {
        let result = try await Subprocess.run(
            .name("curl"),
            arguments: Arguments(["--max-time", "20"] + arguments),
            output: .string(limit: 1 << 22),
            error: .string(limit: 1 << 16)
        )
        return result.standardOutput
    }
}

/// Whether the podboat test runs: where newsboat is installed, and always in CI
/// (which installs it), where a missing podboat must fail it.
let podboatRuns =
    ProcessInfo.processInfo.environment["CI"] != nil
    || (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/podboat") }

struct ServeTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `feedsh serve --json` running in the background, its log (standard error)
/// read as it comes.
typealias LiveServe = LiveFeedsh

extension LiveFeedsh {
    convenience init(
        environment: [String: String],
        listen: String = "127.0.0.1:0",
        extra: [String] = [],
        openFiles: Int? = nil
    ) throws {
        try self.init(
            ["serve", "--listen", listen, "--json"] + extra,
            environment: environment,
            lines: .standardError,
            openFiles: openFiles
        )
    }

    /// `http://127.0.0.1:PORT/`, once it listens.
    func url() async throws -> String {
        let serving = try await waitFor { $0["event"] as? String == "serving" }
        return serving["url"] as? String ?? ""
    }

    /// SIGTERM, then its exit status (killed after 30 s).
    func stop() async throws -> Int32 {
        kill(pid, SIGTERM)
        return try await finish().status
    }
}
