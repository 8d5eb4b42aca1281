import FixtureServer
import Foundation
import Testing

/// A fixture server sending media at `mediaRate`, a download folder, and the paths
/// of the default podcast's first episode in it.
struct DownloadScene {
    let server: FixtureServer
    let downloads: URL

    static func start(mediaRate: Int) async throws -> DownloadScene {
        DownloadScene(
            server: try await FixtureServer.start(.init(mediaRate: mediaRate)),
            downloads: try temporaryDirectory()
        )
    }

    var environment: [String: String] {
        ["FEEDSH_ITUNES_URL": server.baseURL.absoluteString, "FEEDSH_DOWNLOAD_DIR": downloads.path]
    }
    var final: URL { downloads.appendingPathComponent("1386867488/1000700000001.mp3") }
    var part: URL { URL(fileURLWithPath: final.path + ".part") }
    var sidecar: URL { URL(fileURLWithPath: final.path + ".part.json") }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(at: downloads)
    }
}

@Suite("Downloads across processes")
struct DownloadProcessTests {
    /// SIGINT ends a script with 130 after pausing its downloads: the .part and
    /// its metadata stay for a later resume, and no final file appears.
    @Test func sigintPausesDownloadsAndExits130() async throws {
        let scene = try await DownloadScene.start(mediaRate: 500_000)
        defer { Task { await scene.stop() } }
        let (final, sidecar) = (scene.final, scene.sidecar)

        let errors = Pipe()
        let process = try launchFeedsh(
            ["-c", "lookup; get 1; wait"],
            environment: scene.environment,
            home: scene.downloads,
            errors: errors
        )
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, !FileManager.default.fileExists(atPath: sidecar.path) {
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(process.processIdentifier, SIGINT)
        #expect(await waitForExit(process, timeout: .seconds(15)))
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("interrupted; pausing 1 download\n"), "\(stderr)")
        #expect(!stderr.contains("the downloads go on"), "\(stderr)")
        #expect(FileManager.default.fileExists(atPath: final.path + ".part"))
        #expect(FileManager.default.fileExists(atPath: sidecar.path))
        #expect(!FileManager.default.fileExists(atPath: final.path))
    }

    @Test func killedMidDownloadResumesInANewProcess() async throws {
        let scene = try await DownloadScene.start(mediaRate: 1_500_000)
        defer { Task { await scene.stop() } }
        let (server, environment) = (scene.server, scene.environment)
        let (final, part, sidecar) = (scene.final, scene.part, scene.sidecar)

        let first = try launchFeedsh(["-c", "lookup; get 1; wait"], environment: environment, home: scene.downloads)

        // Kill it once the sidecar confirms some bytes (it does so every second).
        let confirmed = try await waitForConfirmedBytes(sidecar)
        kill(first.processIdentifier, SIGKILL)
        #expect(await waitForExit(first, timeout: .seconds(10)))
        #expect(confirmed > 0)
        #expect(FileManager.default.fileExists(atPath: part.path))
        #expect(!FileManager.default.fileExists(atPath: final.path))

        let second = try await runFeedsh(["-c", "lookup; episodes; resume 1; wait"], environment: environment)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("% paused  Ports, Sockets"))
        #expect(second.standardError.contains("downloaded 1 Ports, Sockets and the Art of Listening"))
        let expected = SyntheticMedia(key: "1386867488/1000700000001.mp3").allBytes
        #expect(try Data(contentsOf: final) == Data(expected))
        #expect(!FileManager.default.fileExists(atPath: part.path))
        #expect(!FileManager.default.fileExists(atPath: sidecar.path))
        let resumedFrom = server.requests.compactMap(\.range).compactMap { range -> Int? in
            guard range.hasPrefix("bytes=") else { return nil }
            return Int(range.dropFirst(6).prefix { $0 != "-" })
        }
        #expect(resumedFrom.count == 1)
        // From the confirmed bytes, less the 64 KiB asked for again to compare.
        #expect(resumedFrom.first.map { $0 >= confirmed - 65_536 && $0 > 0 } == true, "\(resumedFrom) \(confirmed)")
    }

    /// Two feedsh processes on one episode: the second says who holds it and touches
    /// nothing; the first finishes an exact file and leaves no .part or metadata.
    /// (Two used to produce a file with 48 KB of zeros, reported "downloaded".)
    @Test func oneProcessOwnsADownload() async throws {
        let scene = try await DownloadScene.start(mediaRate: 2_000_000)
        defer { Task { await scene.stop() } }
        let (environment, final, sidecar) = (scene.environment, scene.final, scene.sidecar)

        let first = try launchFeedsh(["-c", "lookup; get 1; wait"], environment: environment, home: scene.downloads)
        defer { if first.isRunning { first.terminate() } }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, !FileManager.default.fileExists(atPath: sidecar.path) {
            try await Task.sleep(for: .milliseconds(20))
        }

        let second = try await runFeedsh(
            ["--keep-going", "-c", "lookup; get 1; resume 1; cancel 1; pause 1"],
            environment: environment
        )
        let owner = "1 is being downloaded by feedsh (pid \(first.processIdentifier))"
        #expect(second.standardOutput.components(separatedBy: owner).count - 1 == 4, "\(second.standardOutput)")
        #expect(first.isRunning)

        // A third waits for the first to let go, then reports the finished file.
        let waiter = try await runFeedsh(["-c", "lookup; wait 1"], environment: environment)
        #expect(waiter.status == 0, "\(waiter.standardError)")
        #expect(waiter.standardError.contains("waiting for 1, being downloaded by another feedsh"))
        #expect(waiter.standardOutput.contains("downloaded 1 Ports, Sockets and the Art of Listening ("))

        #expect(await waitForExit(first, timeout: .seconds(60)))
        #expect(first.terminationStatus == 0)
        let expected = SyntheticMedia(key: "1386867488/1000700000001.mp3").allBytes
        #expect(try Data(contentsOf: final) == Data(expected))
        #expect(!FileManager.default.fileExists(atPath: final.path + ".part"))
        #expect(!FileManager.default.fileExists(atPath: sidecar.path))
        #expect(!FileManager.default.fileExists(atPath: sidecar.path + ".tmp"))
    }

    /// After SIGTERM nothing new starts: with one download at a time and four queued
    /// behind it, the server sees one media request, and the run ends 143 with the
    /// running one paused.
    @Test func nothingStartsAfterSIGTERM() async throws {
        let scene = try await DownloadScene.start(mediaRate: 500_000)
        defer { Task { await scene.stop() } }
        let process = try launchFeedsh(
            ["--max-concurrent", "1", "-c", "lookup; get all; wait"],
            environment: scene.environment,
            home: scene.downloads
        )
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, !FileManager.default.fileExists(atPath: scene.sidecar.path) {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGTERM)
        #expect(await waitForExit(process, timeout: .seconds(15)))
        #expect(process.terminationStatus == 143)
        let media = scene.server.requests.filter { $0.path.hasPrefix("/media/") }
        #expect(media.count == 1, "\(media.map(\.path))")
        #expect(FileManager.default.fileExists(atPath: scene.part.path))
    }

    @Test func getRunsInTheBackgroundAndTheScriptWaits() async throws {
        let server = try await FixtureServer.start(.init(mediaRate: 4_000_000))
        defer { Task { await server.stop() } }
        let downloads = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: downloads) }
        let result = try await runFeedsh(
            ["--engine", "urlsession", "-c", "lookup 1000000001 --limit 1; get 1"],
            environment: ["FEEDSH_DOWNLOAD_DIR": downloads.path, "FEEDSH_ITUNES_URL": server.baseURL.absoluteString]
        )
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("downloading 1: #060 A Short History of Bridges, Part 1"))
        #expect(result.standardError.contains("waiting for 1 download to finish"))
        let progressLines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("[1] ") }
        // How many deciles get a line depends on scheduling; never more than nine.
        #expect((1...9).contains(progressLines.count), "one line per 10 % at most")
        #expect(progressLines.allSatisfy { $0.contains("% of 7.5 MB, ") })
        let files = try FileManager.default.contentsOfDirectory(atPath: downloads.path + "/1000000001")
        #expect(files == ["1000800000000.mp3"])
    }
}
