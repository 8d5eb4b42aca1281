import Downloads
import FeedKit
import FixtureServer
import Foundation
import ShellKit
import Testing

@testable import FeedShell

@Suite("Download commands")
struct DownloadCommandTests {
    /// The media of episode `number` of the default fixture, as the server sends it.
    private func expectedMedia(_ h: ShellHarness, number: Int) async throws -> Data {
        let podcast = try #require(await h.shell.session.podcast)
        let episode = podcast.episodes[number - 1]
        return Data(SyntheticMedia(key: "\(podcast.id)/\(episode.id).mp3").allBytes)
    }

    private func file(_ h: ShellHarness, number: Int) async throws -> DownloadLayout.File {
        let podcast = try #require(await h.shell.session.podcast)
        let episode = podcast.episodes[number - 1]
        return DownloadLayout(root: h.downloads).file(podcastID: podcast.id, episodeID: episode.id, extension: "mp3")
    }

    @Test func getThenWaitDownloadsExactBytes() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; get 1,3; wait") == .success)
            let out = h.output.standardOutput
            let err = h.output.standardError
            #expect(out.contains("downloading 1: Ports, Sockets and the Art of Listening\n"))
            // Said once, as it happened, with the file's path; `wait` does not repeat it.
            let first = try await file(h, number: 1).final.path
            #expect(err.contains("downloaded 1 Ports, Sockets and the Art of Listening (6.6 MB) to \(first)\n"))
            #expect((out + err).components(separatedBy: "downloaded 1 ").count == 2)
            #expect(err.contains("downloaded 3 The ETag Whisperer ("))
            for number in [1, 3] {
                let final = try await file(h, number: number).final
                #expect(try Data(contentsOf: final) == (try await expectedMedia(h, number: number)))
            }
            h.output.clear()
            #expect(await h.run("episodes; get 1") == .success)
            let rows = h.output.standardOutput.split(separator: "\n")
            #expect(rows[1].contains("  downloaded  "))
            #expect(!rows[2].contains("downloaded"))
            #expect(h.output.standardOutput.hasSuffix("1 is already downloaded\n"))
            // A finished download is said to be finished by cancel, and wait with
            // nothing running says so.
            h.output.clear()
            #expect(await h.run("cancel 1; wait") == .success)
            #expect(h.output.standardOutput.contains("1 is already downloaded ('delete 1' removes the file)"))
            #expect(h.output.standardError.contains("nothing to wait for: no download is running"))
        }
    }

    /// `set rate-limit` caps the engine (two downloads share it) and keeps every
    /// byte right; a rate it cannot take is refused and nothing changes; `default`
    /// lifts the cap.
    @Test func rateLimitCapsDownloadsAndKeepsThemExact() async throws {
        try await ShellHarness.run { h in
            for bad in ["0", "-1", "10Q", "512"] {
                #expect(await h.run("set rate-limit \(bad)") == .failure)
                #expect(h.output.standardError.contains("rate-limit takes a rate of at least 1k a second"))
                h.output.clear()
            }
            #expect(h.shell.session.services.downloads.engine.limiter.rate == nil)
            #expect(await h.run("set rate-limit 8M") == .success)
            #expect(h.output.standardOutput.contains("rate-limit is 8M"))
            #expect(await h.run("lookup; get 1,3; wait") == .success)
            #expect(h.shell.session.services.downloads.engine.limiter.rate == 8 << 20)
            for number in [1, 3] {
                let final = try await file(h, number: number).final
                #expect(try Data(contentsOf: final) == (try await expectedMedia(h, number: number)))
            }
            h.output.clear()
            #expect(await h.run("set") == .success)
            #expect(h.output.standardOutput.contains("rate-limit"), "\(h.output.standardOutput)")
            #expect(await h.run("set rate-limit default") == .success)
            #expect(h.shell.session.services.downloads.engine.limiter.rate == nil)

            // Paused under a cap, a download resumes from its .part, uncapped.
            #expect(await h.run("set rate-limit 1M") == .success)
            await h.type("get 2")
            try await waitForBytes(h, number: 2, atLeast: 300_000)
            await h.type("pause 2")
            #expect(h.output.standardOutput.contains("paused 2 at "))
            let paused = try await file(h, number: 2)
            #expect(FileManager.default.fileExists(atPath: paused.part.path))
            #expect(await h.run("set rate-limit default; resume 2; wait") == .success)
            #expect(try Data(contentsOf: paused.final) == (try await expectedMedia(h, number: 2)))
            let ranged = h.server.requests.filter { $0.path.hasSuffix(".mp3") }.compactMap(\.range)
            #expect(ranged.count == 1 && ranged.first != "bytes=0-", "\(ranged)")
        }
    }

    /// `get all` over ten thousand episodes starts three, queues the rest and says so
    /// in one line; `cancel all` empties the queue before stopping the three, so no
    /// queued download starts meanwhile. (Both used to be quadratic, and cancel
    /// started each queued download as it stopped the one before.)
    @Test func getAndCancelAllScaleAndSummarise() async throws {
        try await ShellHarness.run { h in
            let episodes = (1...10_000).map { number in
                Episode(
                    id: 5_000_000 + Int64(number),
                    podcastID: 42,
                    title: "Episode \(number)",
                    audioURL: h.server.url("/fault/rate=20000/media/42/\(number).mp3?size=1000000")
                )
            }
            await h.shell.session.load(Podcast(id: 42, title: "Ten Thousand", episodes: EpisodeList(episodes)))
            // Typed at the prompt: a script would wait for the downloads at its end.
            await h.type("get all")
            #expect(h.output.standardOutput == "3 downloading, 9997 queued\n")
            h.output.clear()
            await h.type("cancel all")
            #expect(h.output.standardOutput == "10000 cancelled\n")
            // The three that ran may or may not have reached the server; no queued
            // one ever did.
            #expect(h.server.requests.count <= 3)
            #expect(await h.shell.session.services.downloads.engine.all().allSatisfy { $0.state == .cancelled })
        }
    }

    @Test func selectorsAreValidated() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; get 9") == .failure)
            #expect(
                h.output.standardError
                    == "feedsh: no episode 9 (1-5); usage: get N|N-M|N,M|all|P:E|tN|playlist NAME [--again]\n"
            )
        }
        // The bad part is named, not the whole selector; play offers what it takes.
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; get 1-3,9") == .failure)
            #expect(h.output.standardError.hasPrefix("feedsh: no episode 9 (1-5); usage: get "))
        }
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; play 9") == .failure)
            #expect(
                h.output.standardError
                    == "feedsh: no episode 9 (1-5); usage: play N|P:E|tN|fN|bN|queue|playlist NAME [--from-start] [--at TIME] [--chapter N] [--sleep TIME|end|chapter]\n"
            )
        }
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; pause 2,x") == .failure)
            #expect(h.output.standardError.hasPrefix("feedsh: 'x' is not an episode number or range; usage: pause "))
        }
        // A form the command does not take is refused before anything is looked up.
        try await ShellHarness.run { h in
            #expect(await h.run("lookup; play 1-3") == .failure)
            #expect(
                h.output.standardError
                    == "feedsh: play takes one episode or song, not '1-3'; usage: play N|P:E|tN|fN|bN|queue|playlist NAME [--from-start] [--at TIME] [--chapter N] [--sleep TIME|end|chapter]\n"
            )
            h.output.clear()
            #expect(await h.run("show new") == .failure)
            #expect(h.output.standardError.hasPrefix("feedsh: show takes one episode, not 'new'; usage: show N|P:E"))
        }
        try await ShellHarness.run { h in
            #expect(await h.run("get 1") == .failure)
            #expect(
                h.output.standardError
                    == "feedsh: no podcast loaded: 'podcast N' loads subscription N ('podcasts' lists them), 'lookup' or "
                    + "'open N' one from the directory; or name the episode as P:E\n"
            )
        }
    }

    @Test func pauseKeepsThePartAndAnotherShellResumesIt() async throws {
        try await ShellHarness.run(mediaRate: 2_000_000) { h in
            await h.type("lookup; get 2")
            try await waitForBytes(h, number: 2, atLeast: 1_000_000)
            await h.type("pause 2")
            #expect(h.output.standardOutput.contains("paused 2 at "))
            let file = try await file(h, number: 2)
            #expect(FileManager.default.fileExists(atPath: file.part.path))
            #expect(!FileManager.default.fileExists(atPath: file.final.path))

            // A new shell (a later run) sees the .part as paused and resumes it.
            let later = h.sibling()
            #expect(await later.run("lookup; episodes") == .success)
            #expect(later.output.standardOutput.contains("% paused  Range Requests"))
            #expect(await later.run("resume 2; wait") == .success)
            #expect(later.output.standardOutput.contains("resuming 2 at "))
            #expect(try Data(contentsOf: file.final) == (try await expectedMedia(h, number: 2)))
            let ranged = h.server.requests.filter { $0.path.hasSuffix(".mp3") }.compactMap(\.range)
            #expect(ranged.count == 1)
            #expect(ranged.first != "bytes=0-")
            await later.shell.close()
        }
    }

    @Test func cancelRemovesThePart() async throws {
        try await ShellHarness.run(mediaRate: 1_000_000) { h in
            await h.type("lookup; get 4")
            try await waitForBytes(h, number: 4, atLeast: 100_000)
            await h.type("cancel 4; cancel 5; downloads")
            let out = h.output.standardOutput
            #expect(out.contains("cancelled 4\n"))
            #expect(out.contains("5 is not downloading\n"))
            #expect(out.contains("4  cancelled  Loopback Radio  Backpressure"))
            let file = try await file(h, number: 4)
            #expect(!FileManager.default.fileExists(atPath: file.part.path))
            #expect(!FileManager.default.fileExists(atPath: file.sidecar.path))
        }
    }

    @Test func scriptEndWaitsForRunningDownloads() async throws {
        try await ShellHarness.run { h in
            let status = await h.run("lookup 1000000001 --limit 2; get all")
            #expect(status == .success)
            #expect(h.output.standardError.contains("waiting for 2 downloads to finish\n"))
            #expect(
                await h.shell.session.services.downloads.engine.all().allSatisfy {
                    $0.state == .completed(bytes: $0.state.bytes)
                }
            )
        }
    }

    @Test func scriptFailsWhenABackgroundDownloadFailed() async throws {
        try await ShellHarness.run { h in
            await h.shell.session.services.downloads.engine.start(brokenRequest(h))
            // Every command succeeds, but the download started alongside fails.
            #expect(await h.run("lookup") == .failure)
            await h.shell.close()  // lets the event printer finish
            #expect(h.output.standardError.contains("failed broken: HTTP 404 Not Found from "))
        }
    }

    @Test func failedDownloadMakesWaitFail() async throws {
        try await ShellHarness.run { h in
            _ = await h.run("lookup")
            await h.shell.session.services.downloads.engine.start(brokenRequest(h))
            #expect(await h.run("wait") == .failure)
            #expect(h.output.standardError.contains("failed broken: HTTP 404 Not Found from "))
            #expect(h.output.standardError.hasSuffix("feedsh: 1 download failed\n"))
        }
    }
}

/// Polls until episode `number` of the loaded podcast has `bytes` downloaded.
private func waitForBytes(_ h: ShellHarness, number: Int, atLeast bytes: Int64) async throws {
    let podcast = try #require(await h.shell.session.podcast)
    let id = DownloadID(episode: podcast.episodes[number - 1].id)
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if case .running(let progress?) = await h.shell.session.services.downloads.engine.state(of: id),
            progress.bytes >= bytes
        {
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("episode \(number) never reached \(bytes) bytes")
}

private func brokenRequest(_ h: ShellHarness) -> DownloadRequest {
    DownloadRequest(
        id: "broken",
        url: h.server.url("/fault/status=404/media/x.mp3"),
        file: DownloadLayout(root: h.downloads).file(podcastID: 1, episodeID: 1, extension: "mp3")
    )
}

extension DownloadManager.State {
    /// The completed size, for comparisons in tests.
    var bytes: Int64 {
        if case .completed(let bytes) = self { return bytes }
        return -1
    }
}
