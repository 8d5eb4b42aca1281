import FixtureServer
import Foundation
import Testing

/// One episode, one path, on the binary with the real mpv: the same episode named
/// `N` with its podcast loaded, `P:E` from a shell that loaded nothing, `play
/// queue` and a `find` hit starts where it was left (mpv's own `time-pos` says
/// so), gets the feed's chapters, and saves where it really stopped; what the next
/// `sync` sends is that position, never one counted from 0:00.
@Suite("One episode, one path", .serialized, .enabled(if: listeningTestsRun, "mpv is not installed"))
struct OneEpisodeProcessTests {
    typealias Scene = ListeningProcessTests.Scene

    /// What one play showed: where feedsh said it started, where mpv was when
    /// first asked, how many chapters mpv had, and how feedsh named the episode.
    struct Play {
        let from: Double
        let mpvAt: Double
        let chapters: Int
        let number: String
    }

    /// Runs `commands`, lets mpv play `seconds` past where it started, then quits
    /// it over its IPC socket.
    func playAWhile(_ commands: String, _ scene: Scene, environment: [String: String], seconds: Double = 2)
        async throws -> Play
    {
        let live = try LiveFeedsh(
            ["--json", "-c", commands],
            environment: scene.environment.merging(environment) { $1 }
        )
        let started = try await live.waitFor { $0["event"] as? String == "started" }
        let from = try #require(started["from"] as? Double, "\(started)")
        let pid = Int32(started["pid"] as? Int ?? 0)
        let mpvAt = try #require(try await mpvProperty("time-pos", of: pid) as? Double)
        let chapters = (try await mpvProperty("chapter-list", of: pid) as? [Any])?.count ?? 0
        _ = try await live.waitFor { ($0["seconds"] as? Double ?? 0) >= from + seconds }
        try await sendQuit(toMPV: pid)
        let result = try await live.finish()
        #expect(result.status == 0, "\(result.standardError)")
        return Play(from: from, mpvAt: mpvAt, chapters: chapters, number: started["number"] as? String ?? "")
    }

    @Test func everyRouteResumesTheSavedPositionAndSavesWhereItStopped() async throws {
        try await Scene.with { scene in
            let sync = syncEnvironment(scene.root)
            let environment = ["FEEDSH_SYNC_PASSWORD": sync["FEEDSH_SYNC_PASSWORD"] ?? ""]
            // Played from the file: the fixture makes the tone once (streamed four
            // times, its generation held the test process's threads). The
            // chapters are read once here, and every play reads them from the cache
            // (a play waits 5 s at most for a server, and a loaded one can miss it).
            let setUp = try await scene.run(
                "subscribe \(scene.feed); get 1:1; wait; chapters 1:1; sync login \(scene.base) alice",
                environment: environment
            )
            #expect(setUp.status == 0, "\(setUp.standardError)")

            // The podcast loaded, by its number, from 0:30.
            let loaded = try await playAWhile("podcast 1; play 1 --at 0:30", scene, environment: environment)
            #expect(loaded.from == 30)
            #expect(loaded.chapters > 0, "the feed's chapters reach mpv")
            var saved = try #require(try await scene.episode(1)["position"] as? Double)
            #expect(saved >= 32, "\(saved)")

            // Every other way of naming it, each from a shell that loaded nothing
            // else: each starts where the one before stopped, with the same
            // chapters, and leaves the position further on.
            let routes = [
                ("play 1:1", "1:1"),
                ("queue add 1:1; play queue", "1:1"),
                ("find 120; play f1", "1:1"),
            ]
            for (commands, number) in routes {
                let play = try await playAWhile(commands, scene, environment: environment)
                #expect(abs(play.from - saved) < 0.5, "\(commands): started at \(play.from), saved \(saved)")
                // mpv itself is there: read over its IPC a moment after it
                // started, so a little on (seconds, on a loaded machine), and never
                // near 0:00, where a play that lost the position starts.
                #expect(
                    play.mpvAt >= saved - 0.5 && play.mpvAt < saved + 10,
                    "\(commands): mpv at \(play.mpvAt), saved \(saved)"
                )
                #expect(play.chapters == loaded.chapters, "\(commands)")
                #expect(play.number == number, "\(commands)")
                let now = try #require(try await scene.episode(1)["position"] as? Double)
                #expect(now >= saved + 2, "\(commands): saved \(now) after \(saved)")
                saved = now
            }

            // The next sync sends those plays: each started where the one before
            // stopped, none at 0:00, the last at the position `show` has.
            let synced = try await scene.run("sync", environment: environment)
            #expect(synced.status == 0, "\(synced.standardError)")
            let plays = scene.server.syncActions(user: "alice").compactMap {
                try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
            }.filter { $0["action"] as? String == "play" }
            #expect(plays.count == 4, "\(plays)")
            #expect(plays.allSatisfy { ($0["started"] as? Int ?? 0) >= 30 }, "\(plays)")
            #expect(plays.last?["position"] as? Int == Int(saved), "\(plays)")
            let shown = try await scene.run("show 1:1")
            #expect(shown.standardOutput.contains("at \(clock(saved))"), "\(shown.standardOutput)")
        }
    }

    /// `sync login` as the very first command on a new machine (no library, not
    /// even its folder) logs in and keeps the login 0600.
    @Test func syncLoginIsAFirstCommand() async throws {
        try await Scene.with { scene in
            let library = scene.root.appendingPathComponent("new/machine/library.sqlite")
            var environment = scene.environment
            environment["FEEDSH_LIBRARY"] = library.path
            environment["FEEDSH_SYNC_PASSWORD"] = FixtureServer.syncPassword
            let result = try await runFeedsh(["-c", "sync login \(scene.base) alice; sync"], environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            let login = library.path + "-sync.json"
            let mode = try FileManager.default.attributesOfItem(atPath: login)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }
}

/// `M:SS` as the shell writes a position.
private func clock(_ seconds: Double) -> String {
    let whole = Int(seconds)
    return "\(whole / 60):" + String(format: "%02d", whole % 60)
}
