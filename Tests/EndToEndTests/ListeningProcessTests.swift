import FixtureServer
import Foundation
import SocketTestSupport
import Synchronization
import Testing

/// Whether the listening tests run: where mpv is installed, and always in CI (which
/// installs it), where a missing mpv must fail them rather than skip them.
let listeningTestsRun =
    ProcessInfo.processInfo.environment["CI"] != nil
    || (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/mpv") }

/// Listening through the binary and the real mpv (no sound, no video): positions
/// saved on quit and on SIGKILL, resuming, played at the end, speed, players without
/// IPC; auto-download, cleanup, `delete` and `get --again`.
@Suite("Listening", .serialized, .enabled(if: listeningTestsRun, "mpv is not installed"))
struct ListeningProcessTests {
    /// mpv as the tests run it: no user configuration, no audio or video output.
    static let mpv = "mpv --no-config --ao=null --vo=null"

    struct Scene {
        let server: FixtureServer
        let root: URL
        var base: String { server.baseURL.absoluteString }
        var downloads: URL { root.appendingPathComponent("downloads") }
        var feed: String { "\(base)/feeds/listening.xml" }
        var environment: [String: String] {
            [
                "FEEDSH_DOWNLOAD_DIR": downloads.path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                "FEEDSH_PLAYER": ListeningProcessTests.mpv, "FEEDSH_ITUNES_URL": base,
            ]
        }

        static func with(_ body: (Scene) async throws -> Void) async throws {
            try await withServerAndFolder { server, root in try await body(Scene(server: server, root: root)) }
        }

        func run(_ commands: String, json: Bool = false, environment extra: [String: String] = [:]) async throws
            -> FeedshResult
        {
            try await runFeedsh(
                (json ? ["--json"] : []) + ["-c", commands],
                environment: environment.merging(extra) { $1 }
            )
        }

        /// The `.wav` files under the download folder, by name.
        func files() -> [String: URL] {
            let walker = FileManager.default.enumerator(at: downloads, includingPropertiesForKeys: nil)
            let files = (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "wav" }
            return Dictionary(files.map { ($0.lastPathComponent, $0) }) { first, _ in first }
        }

        /// Episode `number`'s JSON in `episodes` of subscription 1.
        func episode(_ number: Int) async throws -> [String: Any] {
            let result = try await run("podcast 1; episodes", json: true)
            let lines = jsonLines(result.standardOutput)
            let episodes = lines.last?["result"] as? [[String: Any]] ?? []
            return episodes.first { $0["number"] as? Int == number } ?? [:]
        }
    }

    @Test func playingToTheEndMarksPlayedAtTheSpeedSet() async throws {
        try await Scene.with { scene in
            let setUp = try await scene.run("subscribe \(scene.feed); set speed 4")
            #expect(setUp.status == 0, "\(setUp.standardError)")
            #expect(setUp.standardOutput.contains("speed is 4"))
            // Episode 3 lasts 4 s: a second at speed 4, streamed from the server.
            let result = try await scene.run("podcast 1; play 3", json: true)
            #expect(result.status == 0, "\(result.standardError)")
            let lines = jsonLines(result.standardOutput)
            let started = lines.first { $0["event"] as? String == "started" }
            #expect(started?["speed"] as? Double == 4)
            // Every documented key is there, null while unknown.
            #expect(started.map { Set($0.keys).isSuperset(of: ["pid", "from", "speed", "duration"]) } == true)
            #expect(lines.contains { $0["event"] as? String == "played" })
            let play = lines.last?["result"] as? [String: Any]
            #expect(play?["reason"] as? String == "end-of-file")
            #expect(play?["source"] as? String == "\(scene.base)/media/tone/4.wav")
            let episode = try await scene.episode(3)
            #expect(episode["played"] as? Bool == true)
            #expect(episode["position"] as? Double == 0)
            // A person sees it in words.
            let text = try await scene.run("podcast 1; play 4")
            #expect(text.standardError.contains("playing 4: Tone 4: 3 seconds (streaming) at 4×"))
            #expect(text.standardOutput.contains("played 4: Tone 4: 3 seconds"))
        }
    }

    /// A start past the end could only fail in mpv, which once still marked the
    /// episode played, took it out of the queue and recorded a finished play.
    /// `play --at` and `bookmark` refuse it with the episode's length, and
    /// nothing changes.
    @Test func aStartPastTheEndIsRefusedAndChangesNothing() async throws {
        try await Scene.with { scene in
            let setUp = try await scene.run("subscribe \(scene.feed); queue add 1:1")
            #expect(setUp.status == 0, "\(setUp.standardError)")
            let play = try await scene.run("play 1:1 --at 99:00")
            #expect(play.status == 1)
            // 99 minutes: 1:39:00.
            #expect(
                play.standardError.contains("1:39:00 is past the end of 1:1, which is 2:00 long"),
                "\(play.standardError)"
            )
            let mark = try await scene.run("bookmark 1:2 0:30 too late")
            #expect(mark.status == 1)
            #expect(
                mark.standardError.contains("0:30 is past the end of 1:2, which is 0:08 long"),
                "\(mark.standardError)"
            )
            let json = try await scene.run("play 1:1 --at 2:00", json: true)
            #expect(json.status == 1)
            let error = jsonLines(json.standardOutput).last?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "past-the-end", "\(json.standardOutput)")
            let episode = try await scene.episode(1)
            #expect(episode["played"] as? Bool == false && episode["position"] as? Double == 0, "\(episode)")
            let queue = try await scene.run("queue; bookmarks; stats", json: true)
            let results = jsonLines(queue.standardOutput).compactMap { $0["result"] }
            #expect(
                (results.first as? [[String: Any]])?.map { $0["ref"] as? String } == ["1:1"],
                "\(queue.standardOutput)"
            )
            #expect((results.dropFirst().first as? [Any])?.isEmpty == true, "\(queue.standardOutput)")
            #expect(!queue.standardOutput.contains("\"finished\":1"), "\(queue.standardOutput)")
        }
    }

    /// `play queue` plays the queue in order, each at its podcast's own speed (as
    /// mpv reports it back); `q` in mpv goes on to the next, which leaves the queue
    /// when played to the end, while the one quit stays.
    @Test func playQueuePlaysInOrderAtThePodcastsSpeed() async throws {
        try await Scene.with { scene in
            let setUp = try await scene.run(
                "subscribe \(scene.feed); set speed 2; set podcast 1 speed 4; queue add 1:1; queue add 1:4,3; queue move 3 2"
            )
            #expect(setUp.status == 0, "\(setUp.standardError)")
            #expect(setUp.standardOutput.contains("1 Tones for Listening: plays at 4×"), "\(setUp.standardOutput)")
            let listed = try await scene.run("queue", json: true)
            let refs = (jsonLines(listed.standardOutput).last?["result"] as? [[String: Any]] ?? []).map {
                $0["ref"] as? String
            }
            #expect(refs == ["1:1", "1:3", "1:4"], "\(listed.standardOutput)")
            let live = try LiveFeedsh(["--json", "-c", "play queue"], environment: scene.environment)
            let first = try await live.waitFor { $0["event"] as? String == "started" }
            #expect(first["number"] as? String == "1:1")
            #expect(first["speed"] as? Double == 4)
            #expect(try await mpvProperty("speed", of: Int32(first["pid"] as? Int ?? 0)) as? Double == 4)
            _ = try await live.waitFor { ($0["seconds"] as? Double ?? 0) >= 1 }
            try await sendQuit(toMPV: Int32(first["pid"] as? Int ?? 0))
            let result = try await live.finish(timeout: .seconds(60))
            #expect(result.status == 0, "\(result.standardError)")
            let lines = jsonLines(result.standardOutput)
            let started = lines.filter { $0["event"] as? String == "started" }
            #expect(started.map { $0["number"] as? String } == ["1:1", "1:3", "1:4"], "\(result.standardOutput)")
            #expect(started.allSatisfy { $0["speed"] as? Double == 4 })
            let played = lines.filter { $0["event"] as? String == "played" }.map { $0["number"] as? String }
            #expect(played == ["1:3", "1:4"])
            let left = try await scene.run("queue", json: true)
            let remaining = (jsonLines(left.standardOutput).last?["result"] as? [[String: Any]] ?? [])
            #expect(remaining.map { $0["ref"] as? String } == ["1:1"], "\(left.standardOutput)")
            // Back to the speed setting.
            let reset = try await scene.run("set podcast 1 speed default; podcast 1; play 4", json: true)
            let again = jsonLines(reset.standardOutput).first { $0["event"] as? String == "started" }
            #expect(again?["speed"] as? Double == 2)
        }
    }

    /// `play playlist NAME` plays through a smart playlist, evaluating it again
    /// after each episode: with `limit:2` it holds two at a time, yet all four
    /// short tones are played, each leaving it as it is played to the end.
    @Test func playPlaylistEvaluatesItAgainAfterEachEpisode() async throws {
        try await Scene.with { scene in
            let setUp = try await scene.run(
                "subscribe \(scene.feed); set speed 4; playlist add short unplayed shorter:10s sort:longest limit:2"
            )
            #expect(setUp.status == 0, "\(setUp.standardError)")
            let result = try await scene.run("play playlist short", json: true)
            #expect(result.status == 0, "\(result.standardError)")
            let lines = jsonLines(result.standardOutput)
            let started = lines.filter { $0["event"] as? String == "started" }.map { $0["number"] as? String }
            #expect(started == ["1:2", "1:3", "1:4", "1:5"], "\(result.standardOutput)")
            let played = lines.filter { $0["event"] as? String == "played" }.map { $0["number"] as? String }
            #expect(played == ["1:2", "1:3", "1:4", "1:5"])
            let left = try await scene.run("playlist short")
            #expect(left.standardOutput.contains("no episodes match now"), "\(left.standardOutput)")
        }
    }

    /// An episode whose feed names no chapters lists those inside its downloaded
    /// file (as mpv reads them, sanitized), and `play --chapter` starts at one.
    @Test func chaptersInsideADownloadedFile() async throws {
        try await Scene.with { scene in
            let before = try await scene.run("subscribe \(scene.base)/feeds/chaptered.xml; chapters 1:1")
            #expect(before.status != 0)
            #expect(before.standardError.contains("read once it is downloaded"), "\(before.standardError)")
            let listed = try await scene.run("get 1:1; wait; chapters 1:1")
            #expect(listed.status == 0, "\(listed.standardError)")
            #expect(listed.standardOutput.contains("0:00  Intro"), "\(listed.standardOutput)")
            #expect(listed.standardOutput.contains("0:04  Main part"), "\(listed.standardOutput)")
            #expect(!listed.standardOutput.contains("\u{1B}"), "\(listed.standardOutput)")
            let played = try await scene.run("play 1:1 --chapter 2 --from-start")
            #expect(played.standardError.contains("cannot go together"), "\(played.standardError)")
            let live = try LiveFeedsh(["--json", "-c", "play 1:1 --chapter 2"], environment: scene.environment)
            let started = try await live.waitFor { $0["event"] as? String == "started" }
            #expect(started["from"] as? Double == 4, "\(started)")
            let pid = Int32(started["pid"] as? Int ?? 0)
            let list = try await mpvProperty("chapter-list", of: pid) as? [[String: Any]]
            #expect(list?.map { $0["time"] as? Double } == [0, 4], "\(String(describing: list))")
            #expect((try await mpvProperty("time-pos", of: pid) as? Double ?? -1) >= 4)
            try await sendQuit(toMPV: Int32(started["pid"] as? Int ?? 0))
            #expect(try await live.finish().status == 0)
        }
    }

    /// `find` names the second a word was said in a transcript, and `play P:E --at`
    /// of it starts mpv there (its own `time-pos` reports it).
    @Test func findThenPlayLandsWhereTheWordWasSaid() async throws {
        try await Scene.with { scene in
            let setUp = try await scene.run("subscribe \(scene.feed); transcript 1:1")
            #expect(setUp.status == 0, "\(setUp.standardError)")
            let found = try await scene.run("find aardvark", json: true)
            let hit = try #require((jsonLines(found.standardOutput).last?["result"] as? [[String: Any]])?.first)
            let ref = try #require(hit["ref"] as? String)
            let at = try #require(hit["at"] as? Double)
            #expect(ref == "1:1" && at == 75)
            let live = try LiveFeedsh(
                ["--json", "-c", "play \(ref) --at \(Int(at))"],
                environment: scene.environment
            )
            let started = try await live.waitFor { $0["event"] as? String == "started" }
            #expect(started["from"] as? Double == 75)
            let position = try await live.waitFor { $0["event"] as? String == "position" }
            let seconds = try #require(position["seconds"] as? Double)
            #expect((75..<80).contains(seconds), "\(position)")
            let timePos = try await mpvProperty("time-pos", of: Int32(started["pid"] as? Int ?? 0)) as? Double
            #expect(timePos.map { (75..<80).contains($0) } == true, "\(String(describing: timePos))")
            try await sendQuit(toMPV: Int32(started["pid"] as? Int ?? 0))
            #expect(try await live.finish().status == 0)
            // The hit's own reference: `play f1` starts at the same second.
            let byHit = try LiveFeedsh(["--json", "-c", "find aardvark; play f1"], environment: scene.environment)
            let fromHit = try await byHit.waitFor { $0["event"] as? String == "started" }
            #expect(fromHit["from"] as? Double == 75, "\(fromHit)")
            try await sendQuit(toMPV: Int32(fromHit["pid"] as? Int ?? 0))
            #expect(try await byHit.finish().status == 0)
        }
    }

    @Test func thePositionIsSavedOnQuitAndOnSIGKILLAndPlayResumesThere() async throws {
        try await Scene.with { scene in
            let setUp = try await scene.run("subscribe \(scene.feed); get 1; wait")
            #expect(setUp.status == 0, "\(setUp.standardError)")
            // Quit through mpv's IPC after two seconds of the two-minute file.
            let first = try LiveFeedsh(["--json", "-c", "podcast 1; play 1"], environment: scene.environment)
            let started = try await first.waitFor { $0["event"] as? String == "started" }
            #expect(started["from"] as? Double == 0)
            _ = try await first.waitFor { ($0["seconds"] as? Double ?? 0) >= 2 }
            try await sendQuit(toMPV: Int32(started["pid"] as? Int ?? 0))
            let quit = try await first.finish()
            #expect(quit.status == 0)
            let stopped = try #require(jsonLines(quit.standardOutput).last?["result"] as? [String: Any])
            #expect(stopped["reason"] as? String == "quit")
            #expect(stopped["played"] as? Bool == false)
            #expect(stopped["source"] as? String == scene.files().values.first?.path)
            let saved = try #require(try await scene.episode(1)["position"] as? Double)
            #expect((2..<10).contains(saved))

            // The next play starts there; mpv killed outright still leaves its last
            // position in the library.
            let second = try LiveFeedsh(["--json", "-c", "podcast 1; play 1"], environment: scene.environment)
            let resumed = try await second.waitFor { $0["event"] as? String == "started" }
            let from = try #require(resumed["from"] as? Double)
            #expect(abs(from - saved) < 0.5)
            _ = try await second.waitFor { ($0["seconds"] as? Double ?? 0) >= from + 1.5 }
            kill(Int32(resumed["pid"] as? Int ?? 0), SIGKILL)
            let killed = try await second.finish()
            #expect(killed.status == 0, "\(killed.standardError)")
            let result = try #require(jsonLines(killed.standardOutput).last?["result"] as? [String: Any])
            #expect(result["reason"] as? String == "killed")
            let afterKill = try #require(try await scene.episode(1)["position"] as? Double)
            #expect(afterKill >= from + 1.5)
            #expect(afterKill < 110)
            #expect(try await scene.episode(1)["played"] as? Bool == false)
        }
    }

    @Test func aPlayerWithoutIPCMarksPlayedOnlyWhenItExitsZero() async throws {
        try await Scene.with { scene in
            _ = try await scene.run("subscribe \(scene.feed)")
            let failing = try await scene.run("podcast 1; play 2", environment: ["FEEDSH_PLAYER": "false {}"])
            #expect(failing.status == 0, "\(failing.standardError)")
            #expect(failing.standardOutput.contains("stopped 2: false exited with status 1"))
            #expect(try await scene.episode(2)["played"] as? Bool == false)
            // The setting, when FEEDSH_PLAYER does not say otherwise.
            let setting = try await runFeedsh(
                ["-c", "set player 'true {}'; set; podcast 1; play 2"],
                environment: scene.environment.filter { $0.key != "FEEDSH_PLAYER" }
            )
            #expect(setting.status == 0, "\(setting.standardError)")
            // The table's row (its columns as wide as the longest setting's name).
            let rows = setting.standardOutput.split(separator: "\n").map { $0.split(separator: " ") }
            #expect(rows.contains(["player", "true", "{}", "set"]), "\(setting.standardOutput)")
            #expect(setting.standardOutput.contains("played 2: Tone 2: 8 seconds"))
            #expect(try await scene.episode(2)["played"] as? Bool == true)
        }
    }

    @Test func withoutMPVTheErrorSaysHowToInstallItOrChooseAnother() async throws {
        try await Scene.with { scene in
            _ = try await scene.run("subscribe \(scene.feed)")
            var environment = scene.environment.filter { $0.key != "FEEDSH_PLAYER" }
            environment["PATH"] = "/nonexistent"
            let result = try await runFeedsh(["-c", "podcast 1; play 1"], environment: environment)
            #expect(result.status == 1)
            #expect(result.standardError.contains("mpv is not installed"))
            #expect(result.standardError.contains("apt-get install mpv"))
            #expect(result.standardError.contains("set player"))
        }
    }

    @Test func updateDownloadsNewEpisodesOfAutodownloadPodcastsAndCleanupKeepsK() async throws {
        try await Scene.with { scene in
            // The feed gains a bonus episode after the first request.
            let feed = "\(scene.base)/fault/changes=1/feeds/listening.xml"
            let setUp = try await scene.run("subscribe \(feed); get 2-5; wait; mark played 3-5")
            #expect(setUp.status == 0, "\(setUp.standardError)")
            #expect(scene.files().count == 4)
            // Keep 2: of the files of 2, 3, 4, 5 (newest first), the played 4 and 5 go.
            let keep = try await scene.run("podcast 1; set podcast 1 keep 2")
            #expect(keep.status == 0, "\(keep.standardError)")
            #expect(keep.standardOutput.contains("keeping the newest 2 downloaded files"))
            #expect(keep.standardOutput.components(separatedBy: "deleted ").count - 1 == 2)
            #expect(scene.files().count == 2)
            // Auto-download: the bonus episode arrives and downloads; cleanup then
            // deletes played 3, now beyond the newest two; unplayed 2 stays.
            let update = try await scene.run("set podcast 1 autodownload on; update; wait")
            #expect(update.status == 0, "\(update.standardError)")
            #expect(update.standardOutput.contains("Tones for Listening: 1 new episode"))
            #expect(update.standardOutput.contains("auto-download: downloading 1:1: Bonus tone 1"))
            #expect(update.standardError.contains("deleted "))
            let files = scene.files()
            #expect(files.count == 2)
            let expected = ToneMedia(seconds: 3).allBytes
            let bonus = try await scene.episode(1)
            #expect(bonus["title"] as? String == "Bonus tone 1")
            #expect((bonus["status"] as? [String: Any])?["state"] as? String == "downloaded")
            let two = try await scene.episode(3)
            #expect((two["status"] as? [String: Any])?["state"] as? String == "downloaded")
            let three = try await scene.episode(4)
            #expect((three["status"] as? [String: Any])?["state"] as? String == "none")
            #expect(three["played"] as? Bool == true)
            #expect(files.values.contains { (try? Data(contentsOf: $0)) == Data(expected) })
            // Cleanup can be turned off.
            let off = try await scene.run("set cleanup off; podcast 1; mark played 1; set podcast 1 keep 0")
            #expect(off.status == 0, "\(off.standardError)")
            #expect(!off.standardOutput.contains("deleted "))
            #expect(scene.files().count == 2)
        }
    }

    @Test func deleteKeepsTheEpisodeAndGetAgainDownloadsItAnew() async throws {
        try await Scene.with { scene in
            let setUp = try await scene.run("subscribe \(scene.feed); get 3; wait; mark played 3")
            #expect(setUp.status == 0, "\(setUp.standardError)")
            let file = try #require(scene.files().values.first)
            let listed = try await scene.run("podcast 1; episodes")
            #expect(listed.standardOutput.contains("downloaded, played  Tone 3: 4 seconds"), "\(listed.standardOutput)")
            let deleted = try await scene.run("podcast 1; delete 3; delete 3")
            #expect(deleted.status == 0, "\(deleted.standardError)")
            #expect(deleted.standardOutput.contains("deleted 3: Tone 3: 4 seconds (\(file.path))"))
            #expect(deleted.standardOutput.contains("3 has no downloaded file"))
            #expect(!FileManager.default.fileExists(atPath: file.path))
            let episode = try await scene.episode(3)
            #expect(episode["played"] as? Bool == true)
            #expect((episode["status"] as? [String: Any])?["state"] as? String == "none")
            // Downloaded again: exact bytes, and --again replaces a complete file too.
            let again = try await scene.run("podcast 1; get --again 3; wait; get 3; get --again 3; wait")
            #expect(again.status == 0, "\(again.standardError)")
            #expect(again.standardOutput.contains("3 is already downloaded"))
            #expect(again.standardOutput.components(separatedBy: "downloading 3: Tone 3").count - 1 == 2)
            #expect(try Data(contentsOf: file) == Data(ToneMedia(seconds: 4).allBytes))
        }
    }

    @Test func playTNPlaysASongPreviewDownloadedOrStreamed() async throws {
        try await Scene.with { scene in
            // A player that says what it was given (on standard error: not a terminal).
            let player = ["FEEDSH_PLAYER": "echo PLAYED {}"]
            let streamed = try await scene.run("tracks syn & ack; play t1", environment: player)
            #expect(streamed.status == 0, "\(streamed.standardError)")
            #expect(streamed.standardError.contains("PLAYED \(scene.base)/"))
            #expect(streamed.standardOutput.contains("played t1: "))
            let downloaded = try await scene.run("tracks syn & ack; preview 1; wait t1; play t1", environment: player)
            #expect(downloaded.status == 0, "\(downloaded.standardError)")
            #expect(downloaded.standardError.contains("PLAYED \(scene.downloads.path)/previews/"))
        }
    }

    @Test func settingsListAndRefuseBadValues() async throws {
        try await Scene.with { scene in
            let bad = try await scene.run("set speed 9")
            #expect(bad.status == 1)
            #expect(bad.standardError.contains("speed takes a number from 0.25 to 4, not '9'"))
            let list = try await scene.run("set max-concurrent 1; set speed default; set", json: true)
            #expect(list.status == 0, "\(list.standardError)")
            let settings = (jsonLines(list.standardOutput).last?["result"] as? [String: Any])?["settings"]
            let byName = Dictionary(
                ((settings as? [[String: Any]]) ?? []).map { ($0["name"] as? String ?? "", $0) }
            ) { first, _ in first }
            #expect(byName["max-concurrent"]?["value"] as? String == "1")
            #expect(byName["speed"]?["source"] as? String == "default")
            #expect(byName["player"]?["source"] as? String == "FEEDSH_PLAYER")
            // The stored max-concurrent applies unless --max-concurrent is given.
            let queued = try await scene.run("lookup; get 1,2")
            #expect(queued.standardOutput.contains("downloading 1: "))
            #expect(queued.standardOutput.contains("queued 2: "))
            let given = try await runFeedsh(
                ["--max-concurrent", "1", "-c", "set max-concurrent 4; lookup; get 3,4"],
                environment: scene.environment
            )
            #expect(given.standardOutput.contains("queued 4: "))
        }
    }
}

extension TmuxTests {
    /// SIGTERM (or Ctrl-C) while a script plays: feedsh lets the player stop and
    /// saves the position before it exits 143 (it used to exit at once and lose it).
    @Test func aSignalledScriptSavesThePositionBeforeItExits() async throws {
        try await ListeningProcessTests.Scene.with { scene in
            let setUp = try await scene.run("subscribe \(scene.feed); get 1; wait")
            #expect(setUp.status == 0, "\(setUp.standardError)")
            for signal in [SIGTERM, SIGINT] {
                let live = try LiveFeedsh(["--json", "-c", "podcast 1; play 1"], environment: scene.environment)
                let started = try await live.waitFor { $0["event"] as? String == "started" }
                let from = started["from"] as? Double ?? 0
                _ = try await live.waitFor { ($0["seconds"] as? Double ?? 0) >= from + 2 }
                kill(live.pid, signal)
                let ended = try await live.finish()
                #expect(ended.status == (signal == SIGTERM ? 143 : 130), "\(ended.standardError)")
                let saved = try #require(try await scene.episode(1)["position"] as? Double)
                #expect(saved >= from + 2 && saved < from + 15, "saved \(saved), started at \(from)")
            }
        }
    }

    /// `feedsh -c 'podcast 1; play 1'` typed in a terminal gives mpv the terminal:
    /// its status line shows, `q` stops it and the position is kept.
    @Test(.enabled(if: listeningTestsRun, "mpv is not installed"))
    func aScriptTypedInATerminalGivesMPVTheTerminal() async throws {
        let server = try await FixtureServer.start(.init())
        do {
            try await TmuxSession.with(command: { home in
                [
                    "FEEDSH_DOWNLOAD_DIR=\(home.appendingPathComponent("downloads").path)",
                    "FEEDSH_LIBRARY=\(home.appendingPathComponent("library.sqlite").path)",
                    "FEEDSH_PLAYER=\(ListeningProcessTests.mpv)", "PS1=$ ", "bash", "--norc", "--noprofile", "-i",
                ]
            }) { tmux in
                try await tmux.waitForScreen { $0.hasSuffix("$") }
                let feedsh = feedshBinary.path
                tmux.keys("\(feedsh) -c 'subscribe \(server.baseURL.absoluteString)/feeds/listening.xml'", "Enter")
                try await tmux.waitForScreen { $0.contains("subscribed to Tones for Listening") && $0.hasSuffix("$") }
                tmux.keys("clear; \(feedsh) -c 'podcast 1; play 1'", "Enter")
                // Two seconds in by mpv's own line: what its IPC last reported is
                // then past 0:00 too, however loaded the machine.
                try await tmux.waitForScreen { playing($0, of: "00:02:00") && !lastStatus($0).hasPrefix("A: 00:00:01") }
                tmux.keys("q")
                try await tmux.waitForScreen { $0.contains("Exiting... (Quit)") && $0.hasSuffix("$") }
                let stopped = try #require(stoppedAt(try await tmux.screen()))
                #expect(stopped != "0:00")
                tmux.keys("clear; \(feedsh) -c 'podcast 1; episodes'", "Enter")
                try await tmux.waitForScreen { $0.contains("at \(stopped)  Tone 1: 120 seconds") }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// At the prompt mpv has the terminal: its keys work (q quits), Ctrl-C stops it,
    /// and the prompt comes back with the position kept.
    @Test(.enabled(if: listeningTestsRun, "mpv is not installed"))
    func playAtThePromptGivesMPVTheTerminalAndTheKeys() async throws {
        let server = try await FixtureServer.start(.init())
        do {
            try await playAtThePrompt(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func playAtThePrompt(_ server: FixtureServer) async throws {
        try await TmuxSession.with(command: { home in
            [
                "FEEDSH_DOWNLOAD_DIR=\(home.appendingPathComponent("downloads").path)",
                "FEEDSH_LIBRARY=\(home.appendingPathComponent("library.sqlite").path)",
                "FEEDSH_PLAYER=\(ListeningProcessTests.mpv)", feedshBinary.path,
            ]
        }) { tmux in
            try await tmux.waitForScreen { $0.hasSuffix("feedsh>") }
            tmux.keys("subscribe \(server.baseURL.absoluteString)/feeds/listening.xml", "Enter")
            try await tmux.waitForScreen { $0.hasSuffix("Tones for Listening>") }
            tmux.keys("play 1", "Enter")
            // mpv's own status line, on the terminal, once it has played a little.
            try await tmux.waitForScreen { playing($0, of: "00:02:00") }
            tmux.keys("q")
            try await tmux.waitForScreen { $0.contains("Exiting... (Quit)") && $0.hasSuffix("Listening>") }
            let first = try #require(stoppedAt(try await tmux.screen()))
            #expect(first != "0:00")
            tmux.keys("play 1", "Enter")
            try await tmux.waitForScreen { $0.contains("playing 1: Tone 1: 120 seconds from \(first) (streaming)") }
            // mpv's status line again, below that.
            try await tmux.waitForScreen {
                $0.components(separatedBy: "from \(first) (streaming)").last?.contains("A: 00:") == true
            }
            tmux.keys("C-c")
            try await tmux.waitForScreen {
                $0.components(separatedBy: "stopped 1 at").count == 3 && $0.hasSuffix("Listening>")
            }
            let second = try #require(stoppedAt(try await tmux.screen()))
            tmux.keys("episodes", "Enter")
            try await tmux.waitForScreen { $0.contains("at \(second)  Tone 1: 120 seconds") }
        }
    }
}

/// Whether mpv's status line shows it playing `duration` past its first second.
private func playing(_ screen: String, of duration: String) -> Bool {
    screen.split(separator: "\n").contains {
        $0.hasPrefix("A: 00:") && $0.contains(" / \(duration)") && !$0.hasPrefix("A: 00:00:00")
    }
}

/// mpv's last status line on a screen (`A: 00:00:18 / 00:02:00 ...`): under load
/// it starts a new line after "Audio device underrun detected.", and the old one
/// stays on the screen.
private func lastStatus(_ screen: String) -> Substring {
    screen.split(separator: "\n").last { $0.hasPrefix("A: 00:") } ?? ""
}

/// `M:SS` of the last `stopped 1 at M:SS of ...` on a screen.
private func stoppedAt(_ screen: String) -> String? {
    screen.split(separator: "\n").last { $0.hasPrefix("stopped 1 at ") }
        .flatMap { $0.dropFirst("stopped 1 at ".count).split(separator: " ").first.map(String.init) }
}

/// The JSON objects of `--json` output, a line each.
func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
}

/// mpv's IPC socket, found in its command line.
func mpvSocket(_ pid: Int32) throws -> String {
    let arguments = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8).split(separator: "\0")
    guard let option = arguments.first(where: { $0.hasPrefix("--input-ipc-server=") }) else {
        throw CocoaError(.fileReadUnknown)
    }
    return String(option.dropFirst("--input-ipc-server=".count))
}

/// Sends mpv `quit` through its IPC socket.
func sendQuit(toMPV pid: Int32) async throws {
    _ = try await unixSocketExchange(try mpvSocket(pid), #"{"command":["quit"]}"# + "\n")
}

/// A property of the running mpv, asked over its own IPC socket (not through
/// feedsh): `time-pos`, `speed`, `chapter-list`.
func mpvProperty(_ name: String, of pid: Int32) async throws -> Any? {
    let socket = try mpvSocket(pid)
    // An event may come before the reply on a fresh connection: ask again.
    for _ in 0..<10 {
        let line = try await unixSocketExchange(
            socket,
            #"{"command":["get_property",""# + name + #""],"request_id":9}"# + "\n"
        )
        if let reply = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            reply["request_id"] as? Int == 9
        {
            return reply["data"]
        }
    }
    return nil
}

/// A feedsh running in the background whose `--json` lines a test reads as they come.
final class LiveFeedsh: Sendable {
    /// What the process printed so far.
    private final class Output: Sendable {
        let text = Mutex<String>("")
    }

    private let process: Process
    private let output = Output()
    private let errors: Pipe
    private let reader: Task<Void, Never>
    private let home: URL

    /// Which stream holds the JSON lines: standard output for commands,
    /// standard error for `serve`'s log.
    enum Lines {
        case standardOutput
        case standardError
    }

    /// With `openFiles`, under that limit of open files (util-linux's
    /// `prlimit`, which sets it and execs feedsh: `pid` is feedsh's).
    init(
        _ arguments: [String],
        environment: [String: String],
        lines: Lines = .standardOutput,
        openFiles: Int? = nil
    ) throws {
        home = try temporaryDirectory()
        let process = Process()
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(openFiles):\(openFiles)", feedshBinary.path] + arguments
        } else {
            process.executableURL = feedshBinary
            process.arguments = arguments
        }
        process.environment = testEnvironment(environment, home: home)
        let read = Pipe()
        errors = Pipe()
        process.standardOutput = lines == .standardOutput ? read : FileHandle.nullDevice
        process.standardError = lines == .standardOutput ? errors : read
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        if lines == .standardError { try? errors.fileHandleForWriting.close() }
        let handle = read.fileHandleForReading
        // Blocking reads on a thread of their own, not one of Swift's pool.
        reader = Task { [output] in
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    while true {
                        let data = handle.availableData
                        if data.isEmpty { break }
                        output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
                    }
                    continuation.resume()
                }
            }
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: home)
    }

    /// What it wrote to the stream of JSON lines so far.
    var text: String { output.text.withLock { $0 } }

    /// The process's id, to signal it.
    var pid: Int32 { process.processIdentifier }

    /// The first JSON line for which `condition` holds, waiting up to `timeout`.
    func waitFor(
        timeout: Duration = .seconds(30),
        _ condition: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = jsonLines(text).first(where: condition) { return match }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.terminate()
        Issue.record("no such line within \(timeout); output so far:\n\(text)")
        throw CancellationError()
    }

    /// Waits until its standard output holds `text`, up to `timeout`.
    func waitForText(_ text: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !self.text.contains(text) {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                Issue.record("no '\(text)' within \(timeout); output so far:\n\(self.text)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits for the process to exit (killing it after `timeout`) and returns what
    /// it printed.
    func finish(timeout: Duration = .seconds(30)) async throws -> FeedshResult {
        if !(await waitForExit(process, timeout: timeout)) {
            // Foundation traps reading the status of a process still running.
            Issue.record("feedsh did not exit within \(timeout); killed")
            kill(process.processIdentifier, SIGKILL)
            _ = await waitForExit(process, timeout: .seconds(10))
        }
        await reader.value
        let errorText = await readAll(errors.fileHandleForReading)
        return FeedshResult(
            status: process.terminationStatus,
            standardOutput: text,
            standardError: errorText,
            signalled: process.terminationReason == .uncaughtSignal
        )
    }
}
