import FixtureServer
import Foundation
import SocketTestSupport
import Testing

/// The listening settings, the sleep timer, bookmarks and the history, through the
/// binary and the real mpv (no sound), reading mpv's own properties over its IPC
/// socket. The habits feed: `1:1` is a 40 s tone with a sponsor chapter from 10 s
/// to 20 s and a transcript; `1:2` a 30 s tone silent from 5 s to 15 s.
@Suite("Listening habits", .serialized, .enabled(if: listeningTestsRun, "mpv is not installed"))
struct ListeningHabitsProcessTests {
    struct Scene {
        let server: FixtureServer
        let root: URL
        var base: String { server.baseURL.absoluteString }
        var environment: [String: String] {
            [
                "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("downloads").path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                "FEEDSH_PLAYER": ListeningProcessTests.mpv,
                // Every feedsh of a test shares it: `sleep` finds the running play there.
                "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
            ]
        }

        static func with(_ body: (Scene) async throws -> Void) async throws {
            try await withServerAndFolder { server, root in
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent("run"),
                    withIntermediateDirectories: true
                )
                let scene = Scene(server: server, root: root)
                let setUp = try await scene.run("subscribe \(scene.base)/feeds/habits.xml")
                #expect(setUp.status == 0, "\(setUp.standardError)")
                try await body(scene)
            }
        }

        func run(_ commands: String, json: Bool = false) async throws -> FeedshResult {
            try await runFeedsh((json ? ["--json"] : []) + ["-c", commands], environment: environment)
        }

        func live(_ commands: String) throws -> LiveFeedsh {
            try LiveFeedsh(["--json", "-c", commands], environment: environment)
        }

        /// Episode E of subscription 1 as `episodes --json` has it.
        func episode(_ number: Int) async throws -> [String: Any] {
            let lines = jsonLines(try await run("podcast 1; episodes", json: true).standardOutput)
            let episodes = lines.last?["result"] as? [[String: Any]] ?? []
            return episodes.first { $0["number"] as? Int == number } ?? [:]
        }
    }

    /// mpv's `af` holds feedsh's filters only when they are set, each as set.
    @Test func theAudioFiltersAreInMPVsChainOnlyWhenSet() async throws {
        try await Scene.with { scene in
            func filters() async throws -> [String] {
                let play = try scene.live("play 1:2")
                let started = try await play.waitFor { $0["event"] as? String == "started" }
                let pid = Int32(started["pid"] as? Int ?? 0)
                let chain = try await mpvProperty("af", of: pid) as? [[String: Any]] ?? []
                try await sendQuit(toMPV: pid)
                #expect(try await play.finish().status == 0)
                return chain.map {
                    ($0["label"] as? String ?? "") + "=" + (($0["params"] as? [String: Any])?["graph"] as? String ?? "")
                }
            }
            #expect(try await filters().isEmpty)
            let set = try await scene.run("set skip-silence on; set loudness on; set podcast 1 volume-boost 6dB")
            #expect(set.status == 0, "\(set.standardError)")
            let chain = try await filters()
            #expect(chain.count == 4, "\(chain)")
            #expect(chain.contains { $0.hasPrefix("feedsh-silence=silencedetect") })
            #expect(chain.contains { $0.hasPrefix("feedsh-trim=silenceremove") })
            #expect(chain.contains { $0.hasPrefix("feedsh-loudness=dynaudnorm") })
            #expect(chain.contains("feedsh-boost=volume=6dB"))
            // Back to the defaults, the chain is empty again.
            _ = try await scene.run("set skip-silence default; set loudness off; set podcast 1 volume-boost default")
            #expect(try await filters().isEmpty)
        }
    }

    /// With skip silence, the 10 s pause of the gapped tone goes by in a moment:
    /// past it, feedsh's positions are the file's (mpv's own would lag 10 s behind)
    /// and the position saved is where the file was, not the shortened stream.
    @Test func skippingSilenceEndsSoonerAndKeepsFilePositions() async throws {
        try await Scene.with { scene in
            _ = try await scene.run("set skip-silence on; set speed 2")
            let play = try scene.live("podcast 1; play 2")
            let started = try await play.waitFor { $0["event"] as? String == "started" }
            let began = ContinuousClock.now
            let pid = Int32(started["pid"] as? Int ?? 0)
            _ = try await play.waitFor { ($0["seconds"] as? Double ?? 0) >= 20 }
            let elapsed = ContinuousClock.now - began
            let streamed = try #require(try await mpvProperty("time-pos", of: pid) as? Double)
            // mpv's own status line shows the file's time too, not its shortened clock.
            let status = try await mpvProperty("term-status-msg", of: pid) as? String ?? ""
            try await sendQuit(toMPV: pid)
            let shown = status.split(separator: "A: ").last?.prefix { $0 != " " }.split(separator: ":").compactMap {
                Int($0)
            }
            #expect(status.hasSuffix("(silence skipped)"), "\(status)")
            #expect((shown.map { $0.count == 2 ? $0[0] * 60 + $0[1] : 0 } ?? 0) >= 19, "\(status)")
            let result = try await play.finish()
            #expect(result.status == 0, "\(result.standardError)")
            // From its start, 20 s of file at 2× is 10 s of wall time; with the pause
            // cut, about 5 s (a loaded machine adds to both).
            #expect(elapsed < .seconds(8.5), "\(elapsed)")
            let saved = try #require(try await scene.episode(2)["position"] as? Double)
            #expect(saved >= 20 && saved < 30, "saved \(saved)")
            // mpv's own position is the shortened stream's, about 10 s behind the
            // file's. Read just before the quit, it can only be further behind the
            // position saved at the quit (a fixed bound on it failed under load).
            #expect(saved - streamed > 5, "mpv's time-pos \(streamed), saved \(saved)")
            let stats = jsonLines(try await scene.run("stats", json: true).standardOutput).last?["result"]
            let silence = (stats as? [String: Any])?["savedBySilence"] as? Double ?? 0
            // 9.75 s of the pause cut, played at 2×.
            #expect(abs(silence - 9.75 / 2) < 1, "\(String(describing: stats))")
        }
    }

    /// `--sleep 3s` stops playback about 3 s in, the volume faded, the position saved.
    @Test func aSleepTimerStopsPlaybackAndSavesThePosition() async throws {
        try await Scene.with { scene in
            let refused = try await scene.run("play 1:1 --sleep 0")
            #expect(refused.status == 1)
            #expect(refused.standardError.contains("--sleep takes a time from 1s to 24h"), "\(refused.standardError)")
            let launched = ContinuousClock.now
            let play = try scene.live("play 1:1 --sleep 3s")
            _ = try await play.waitFor { $0["event"] as? String == "started" }
            let started = ContinuousClock.now
            let slept = try await play.waitFor(timeout: .seconds(20)) { $0["event"] as? String == "slept" }
            let sinceLaunch = ContinuousClock.now - launched
            let elapsed = ContinuousClock.now - started
            let result = try await play.finish()
            #expect(result.status == 0, "\(result.standardError)")
            let lines = jsonLines(result.standardOutput)
            let at = try #require(slept["seconds"] as? Double)
            // The timer counts wall time from the start of playback, so it is
            // judged by the clock: neither at once nor late. The position is the
            // file's, and mpv starved of CPU plays slower than the clock (CI
            // stopped once at 1.9 s of file, once at 0.01 s), so it is only kept.
            // Not at once: 3 s at least after the command was run (the playback
            // starts after it); the `started` line can reach this test late under
            // load (0.55 s once), so it bounds only the lateness.
            #expect(sinceLaunch >= .seconds(2.95), "slept \(sinceLaunch) after the command ran")
            #expect(elapsed < .seconds(8), "slept \(elapsed) after playback started")
            #expect((0...4.5).contains(at), "slept at \(at)")
            let played = lines.last?["result"] as? [String: Any]
            #expect(played?["reason"] as? String == "quit")
            #expect(played?["played"] as? Bool == false)
            let saved = try #require(try await scene.episode(1)["position"] as? Double)
            #expect(abs(saved - at) < 1)
        }
    }

    /// `sleep` in a second feedsh reaches the first one's `play`: it says what is
    /// left, and stops it.
    @Test func sleepFromAnotherFeedshStopsTheRunningPlay() async throws {
        try await Scene.with { scene in
            let nothing = try await scene.run("sleep 5s")
            #expect(nothing.status == 1)
            #expect(nothing.standardError.contains("nothing is playing"))
            let play = try scene.live("play 1:1")
            _ = try await play.waitFor { $0["event"] as? String == "started" }
            // 5 s: time for the second feedsh to ask what is left on a loaded
            // machine (2 s ran out first once, the suites beside it running FFmpeg).
            let set = try await scene.run("sleep 5s")
            #expect(set.status == 0, "\(set.standardError)")
            #expect(set.standardOutput.contains("1:1 Sponsored: 40 seconds: stops in 0:05"), "\(set.standardOutput)")
            let asked = try await scene.run("sleep", json: true)
            let left = (jsonLines(asked.standardOutput).last?["result"] as? [String: Any])?["remaining"] as? Double
            #expect(left.map { (0...5.5).contains($0) } == true, "\(asked.standardOutput)")
            let slept = try await play.waitFor(timeout: .seconds(15)) { $0["event"] as? String == "slept" }
            #expect((slept["seconds"] as? Double ?? 0) < 12)
            #expect(try await play.finish().status == 0)
            #expect(try await scene.episode(1)["position"] as? Double ?? 0 > 0)
        }
    }

    /// skip-intro starts a play from the beginning after the intro; a sponsor
    /// chapter is jumped over and said; reaching the outro counts as played.
    @Test func introsSponsorChaptersAndOutrosAreSkipped() async throws {
        try await Scene.with { scene in
            let refused = try await scene.run("set podcast 1 skip-intro -5s")
            #expect(refused.status == 1)
            #expect(refused.standardError.contains("from 0s to 30m"), "\(refused.standardError)")
            let set = try await scene.run(
                "set speed 2; set podcast 1 skip-intro 8s; set podcast 1 skip-chapters sponsor ad; "
                    + "set podcast 1 skip-outro 15s"
            )
            #expect(set.status == 0, "\(set.standardError)")
            let result = try await scene.run("play 1:1 --from-start", json: true)
            #expect(result.status == 0, "\(result.standardError)")
            let lines = jsonLines(result.standardOutput)
            let started = try #require(lines.first { $0["event"] as? String == "started" })
            #expect(abs((started["from"] as? Double ?? 0) - 8) < 0.5)
            let skipped = try #require(lines.first { $0["event"] as? String == "skipped-chapter" })
            #expect(skipped["chapterTitle"] as? String == "Sponsor: Acme Mattresses")
            // Nothing between 10 s and 20 s was played: the next position is past 20.
            let positions = lines.filter { $0["event"] as? String == "position" }.compactMap {
                $0["seconds"] as? Double
            }
            #expect(!positions.contains { $0 > 11 && $0 < 19.5 }, "\(positions)")
            #expect(lines.contains { $0["event"] as? String == "outro" })
            #expect((lines.last?["result"] as? [String: Any])?["played"] as? Bool == true)
            #expect(try await scene.episode(1)["played"] as? Bool == true)
            // A person is told.
            let text = try await scene.run("play 1:1 --at 9")
            #expect(text.standardError.contains("skipped chapter 2: Sponsor: Acme Mattresses"), "\(text.standardError)")
        }
    }

    /// `b` pressed in mpv marks a bookmark, listed with the transcript's words then;
    /// `play bN` plays from it; the history has both plays, and its export names
    /// the feed and GUID.
    @Test func aBookmarkMadeInMPVIsListedWithItsWordsAndPlayedFrom() async throws {
        try await Scene.with { scene in
            #expect(try await scene.run("transcript 1:1").status == 0)
            let play = try scene.live("play 1:1 --at 12")
            let started = try await play.waitFor { $0["event"] as? String == "started" }
            let pid = Int32(started["pid"] as? Int ?? 0)
            _ = try await unixSocketExchange(try mpvSocket(pid), #"{"command":["keypress","b"]}"# + "\n")
            let marked = try await play.waitFor { $0["event"] as? String == "bookmark" }
            let at = try #require(marked["seconds"] as? Double)
            // Heard for a moment before quitting: a play that heard nothing is no
            // history (a quit right at the bookmark, under load, heard 0 s).
            _ = try await play.waitFor { ($0["seconds"] as? Double).map { $0 > at + 0.5 } ?? false }
            try await sendQuit(toMPV: pid)
            #expect(try await play.finish().status == 0)
            #expect((12..<16).contains(at))

            _ = try await scene.run("bookmark 1:2 0:03 the tone before the gap")
            let listed = jsonLines(try await scene.run("bookmarks", json: true).standardOutput).last?["result"]
            let marks = listed as? [[String: Any]] ?? []
            #expect(marks.count == 2)
            #expect(marks.first?["number"] as? String == "b1")
            #expect(marks.first?["ref"] as? String == "1:1")
            #expect(marks.first?["words"] as? String == "This part is brought to you by Acme.", "\(marks)")
            #expect(marks.last?["note"] as? String == "the tone before the gap")
            let text = try await scene.run("bookmarks 1:2")
            #expect(text.standardOutput.contains("b2"))
            #expect(!text.standardOutput.contains("b1 "))

            let fromMark = try scene.live("play b1")
            let resumed = try await fromMark.waitFor { $0["event"] as? String == "started" }
            #expect(abs((resumed["from"] as? Double ?? 0) - at) < 0.5)
            try await sendQuit(toMPV: Int32(resumed["pid"] as? Int ?? 0))
            #expect(try await fromMark.finish().status == 0)

            let csv = try await scene.run("export history")
            #expect(csv.standardOutput.hasPrefix("kind,date,podcast,episode,feedURL,guid,"))
            #expect(csv.standardOutput.contains("play,") && csv.standardOutput.contains(",habits-sponsored,"))
            #expect(csv.standardOutput.contains("bookmark,") && csv.standardOutput.contains("the tone before the gap"))
            let removed = try await scene.run("bookmark rm 2; bookmark rm 9")
            #expect(removed.standardOutput.contains("removed b2"))
            #expect(removed.standardError.contains("no bookmark 9 (1-1)"))
        }
    }

    /// A podcast's own settings apply however its episode is named: `N`, `P:E`,
    /// the queue, a `find` hit and a bookmark.
    @Test func theSettingsApplyHoweverTheEpisodeIsNamed() async throws {
        try await Scene.with { scene in
            let set = try await scene.run(
                "set podcast 1 skip-intro 8s; set podcast 1 skip-chapters sponsor; transcript 1:1; bookmark 1:1 0:12"
            )
            #expect(set.status == 0, "\(set.standardError)")
            for route in [
                "podcast 1; play 1 --from-start", "play 1:1 --from-start", "queue add 1:1; play queue --from-start",
            ] {
                let play = try scene.live(route)
                let started = try await play.waitFor { $0["event"] as? String == "started" }
                #expect(abs((started["from"] as? Double ?? 0) - 8) < 0.5, "\(route): \(started)")
                try await sendQuit(toMPV: Int32(started["pid"] as? Int ?? 0))
                #expect(try await play.finish().status == 0, "\(route)")
            }
            // The hit and the bookmark start in the sponsor chapter, which is skipped.
            for route in ["find acme; play f1", "play b1"] {
                let play = try scene.live(route)
                let skipped = try await play.waitFor { $0["event"] as? String == "skipped-chapter" }
                #expect(skipped["chapterTitle"] as? String == "Sponsor: Acme Mattresses", "\(route)")
                let started = try await play.waitFor { $0["event"] as? String == "started" }
                try await sendQuit(toMPV: Int32(started["pid"] as? Int ?? 0))
                #expect(try await play.finish().status == 0, "\(route)")
            }
        }
    }

    /// On a new machine, the history commands answer without making a library.
    @Test func theHistoryCommandsWorkAsTheFirstCommand() async throws {
        try await withServerAndFolder { server, root in
            let library = root.appendingPathComponent("library.sqlite")
            let result = try await runFeedsh(
                ["-c", "stats; bookmarks; export history"],
                environment: ["FEEDSH_LIBRARY": library.path, "XDG_RUNTIME_DIR": root.path]
            )
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("nothing listened to yet"))
            #expect(result.standardOutput.contains("no bookmarks"))
            #expect(result.standardOutput.contains("kind,date,podcast,episode,feedURL,guid,"))
            #expect(!FileManager.default.fileExists(atPath: library.path))
        }
    }
}
