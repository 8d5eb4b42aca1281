import FixtureServer
import Foundation
import SocketTestSupport
import Testing

/// Downloads that outlive the shell: a background feedsh started by `--detach`,
/// controlled by later shells through its socket, and what it leaves behind.
@Suite("Background downloads", .serialized)
struct BackgroundProcessTests {
    struct Scene {
        let server: FixtureServer
        let root: URL
        /// Short: a socket's path must fit in 108 bytes.
        let runtime: String
        var base: String { server.baseURL.absoluteString }
        var downloads: URL { root.appendingPathComponent("downloads") }
        var socket: String { runtime + "/feedsh/control.sock" }
        var log: URL { root.appendingPathComponent("state/feedsh/background.log") }
        var environment: [String: String] {
            [
                "FEEDSH_ITUNES_URL": base, "FEEDSH_DOWNLOAD_DIR": downloads.path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path, "XDG_RUNTIME_DIR": runtime,
                "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            ]
        }

        static func with(rate: Int, _ body: (Scene) async throws -> Void) async throws {
            var template = Array("/tmp/feedsh-rt-XXXXXX".utf8CString)
            let runtime = String(cString: mkdtemp(&template))
            defer { try? FileManager.default.removeItem(atPath: runtime) }
            try await withServerAndFolder(.init(mediaRate: rate)) { server, root in
                let scene = Scene(server: server, root: root, runtime: runtime)
                // No background feedsh outlives its test.
                defer { if let pid = scene.backgroundPID() { kill(pid, SIGKILL) } }
                try await body(scene)
            }
        }

        func run(_ commands: String, _ flags: [String] = []) async throws -> FeedshResult {
            try await runFeedsh(flags + ["-c", commands], environment: environment)
        }

        /// The background feedsh's pid, from its log, while it runs.
        func backgroundPID() -> Int32? {
            guard let text = try? String(contentsOf: log, encoding: .utf8) else { return nil }
            let starts = text.split(separator: "\n").filter { $0.contains(" started (pid ") }
            guard let line = starts.last, let open = line.range(of: "(pid "),
                let pid = Int32(line[open.upperBound...].prefix { $0.isNumber }), kill(pid, 0) == 0
            else { return nil }
            return pid
        }

        /// The background feedsh's pid once its log names it (it writes the line
        /// as it starts, which a loaded machine may do a moment after the shell
        /// that started it has returned), waiting up to 10 s.
        func startedBackgroundPID() async throws -> Int32 {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if let pid = backgroundPID() { return pid }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("no background feedsh in its log within 10 s")
            throw CancellationError()
        }

        /// Waits (at most `timeout`) until the background feedsh has exited.
        func waitForBackgroundToExit(timeout: Duration = .seconds(60)) async throws {
            let deadline = ContinuousClock.now + timeout
            while let pid = backgroundPID(), kill(pid, 0) == 0 {
                guard ContinuousClock.now < deadline else {
                    Issue.record("the background feedsh (pid \(pid)) is still running")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        func file(_ episode: Int) -> URL {
            downloads.appendingPathComponent("1386867488/100070000000\(episode).mp3")
        }

        func expected(_ episode: Int) -> Data {
            Data(SyntheticMedia(key: "1386867488/100070000000\(episode).mp3").allBytes)
        }
    }

    @Test func detachedDownloadsGoOnAndALaterShellSeesPausesAndResumesThem() async throws {
        try await Scene.with(rate: 700_000) { scene in
            let detached = try await scene.run("lookup; get 1,2", ["--detach"])
            #expect(detached.status == 0, "\(detached.standardError)")
            #expect(detached.standardError.contains("2 downloads continue in the background (feedsh pid "))
            let pid = try await scene.startedBackgroundPID()
            // The shell has exited; its downloads go on, shown by a new shell.
            let listed = try await scene.run("lookup; downloads; episodes")
            #expect(listed.status == 0, "\(listed.standardError)")
            #expect(listed.standardOutput.contains("background · "))
            #expect(listed.standardOutput.contains("% downloading"))
            let paused = try await scene.run("lookup; pause 1")
            #expect(paused.standardOutput.contains("paused 1 at "), "\(paused.standardOutput)")
            #expect(paused.standardOutput.contains("(in the background)"))
            let resumed = try await scene.run("lookup; resume 1")
            #expect(resumed.standardOutput.contains("resuming 1 at "), "\(resumed.standardOutput)")
            #expect(resumed.standardOutput.contains("in the background"))
            #expect(scene.backgroundPID() == pid)
            // Nobody watches: it finishes, records it, and exits.
            try await scene.waitForBackgroundToExit()
            #expect(try Data(contentsOf: scene.file(1)) == scene.expected(1))
            #expect(try Data(contentsOf: scene.file(2)) == scene.expected(2))
            let next = try await scene.run("lookup --limit 1")
            #expect(next.standardError.contains("while you were away: 2 downloaded"), "\(next.standardError)")
            // Said once.
            let after = try await scene.run("lookup --limit 1")
            #expect(!after.standardError.contains("while you were away"))
            #expect(!FileManager.default.fileExists(atPath: scene.socket))
        }
    }

    @Test func aKilledBackgroundLeavesAPartThatResumeCompletesAndItsSocketIsReplaced() async throws {
        try await Scene.with(rate: 1_500_000) { scene in
            let detached = try await scene.run("lookup; get 1", ["--detach"])
            #expect(detached.status == 0, "\(detached.standardError)")
            let pid = try await scene.startedBackgroundPID()
            // Killed once the background has confirmed bytes of its own (each
            // second), so that the .part it leaves shows a percentage: the bytes on
            // disk, or the count the detaching shell confirmed as it let go, raced
            // the background's first confirm under load.
            let sidecar = URL(fileURLWithPath: scene.file(1).path + ".part.json")
            let handedAt = confirmedBytes(sidecar)
            let deadline = ContinuousClock.now + .seconds(20)
            while confirmedBytes(sidecar) == handedAt || confirmedBytes(sidecar) == 0 {
                guard ContinuousClock.now < deadline else { throw CancellationError() }
                try await Task.sleep(for: .milliseconds(50))
            }
            // A shell waiting for it is not left waiting when it dies: killed once
            // that shell is past `lookup` (on a loaded machine that took longer than
            // any fixed pause, and its `wait` found the background gone already).
            let waiter = try LiveFeedsh(["-c", "lookup; wait"], environment: scene.environment)
            try await waiter.waitForText("episodes loaded")
            try await Task.sleep(for: .milliseconds(300))
            kill(pid, SIGKILL)
            while kill(pid, 0) == 0 { try await Task.sleep(for: .milliseconds(20)) }
            let waiting = try await waiter.finish()
            #expect(waiting.status == 0, "\(waiting.standardError)")
            #expect(
                waiting.standardOutput.contains("the background feedsh went away; 'resume 1' continues it here"),
                "\(waiting.standardOutput)\n\(waiting.standardError)"
            )
            // Its socket stays behind, stale.
            #expect(FileManager.default.fileExists(atPath: scene.socket))
            let listed = try await scene.run("lookup; episodes")
            let partSize =
                (try? FileManager.default.attributesOfItem(atPath: scene.file(1).path + ".part")[.size]) ?? "none"
            let sidecarText = (try? String(contentsOf: sidecar, encoding: .utf8)) ?? "none"
            #expect(
                listed.standardOutput.contains("% paused"),
                "\(listed.standardOutput)\npart: \(partSize)\nsidecar: \(sidecarText)\nwaiting: \(waiting.standardOutput)"
            )
            // A new background feedsh replaces the stale socket.
            let again = try await scene.run("lookup; get 2", ["--detach"])
            #expect(again.status == 0, "\(again.standardError)")
            let second = try await scene.startedBackgroundPID()
            #expect(second != pid)
            // The killed one's .part is resumed here, exactly.
            try await scene.waitForBackgroundToExit()
            let resumed = try await scene.run("lookup; resume 1; wait")
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(resumed.standardOutput.contains("resuming 1 at "))
            #expect(try Data(contentsOf: scene.file(1)) == scene.expected(1))
            #expect(try Data(contentsOf: scene.file(2)) == scene.expected(2))
        }
    }

    @Test func sigtermPausesTheBackgroundDownloadsAndResumeFinishesThem() async throws {
        try await Scene.with(rate: 1_500_000) { scene in
            let detached = try await scene.run("lookup; get 1", ["--detach"])
            #expect(detached.status == 0, "\(detached.standardError)")
            let pid = try await scene.startedBackgroundPID()
            try await Task.sleep(for: .milliseconds(300))
            kill(pid, SIGTERM)
            try await scene.waitForBackgroundToExit(timeout: .seconds(20))
            let log = try String(contentsOf: scene.log, encoding: .utf8)
            #expect(log.contains("signal 15: pausing the downloads"), "\(log)")
            #expect(log.contains("paused 1 "), "\(log)")
            #expect(!FileManager.default.fileExists(atPath: scene.socket))
            let resumed = try await scene.run("lookup; resume 1; wait")
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(resumed.standardOutput.contains("resuming 1 at "), "\(resumed.standardOutput)")
            #expect(try Data(contentsOf: scene.file(1)) == scene.expected(1))
        }
    }

    @Test func theSocketIsPrivateAndGarbageGetsAnErrorWhileServingGoesOn() async throws {
        try await Scene.with(rate: 300_000) { scene in
            let detached = try await scene.run("lookup; get 3", ["--detach"])
            #expect(detached.status == 0, "\(detached.standardError)")
            var info = stat()
            #expect(stat(scene.runtime + "/feedsh", &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700)
            #expect(stat(scene.socket, &info) == 0)
            #expect(info.st_mode & 0o077 == 0)
            let reply = try await unixSocketExchange(scene.socket, "\u{1B}[2J{{{ not a request\n")
            #expect(reply.contains(#""ok":false"#), "\(reply)")
            #expect(reply.contains("bad-request"))
            let hostile = try await unixSocketExchange(
                scene.socket,
                #"{"v":1,"id":2,"op":"cancel","ids":["../../etc"]}"# + "\n"
            )
            #expect(hostile.contains("unknown-download"), "\(hostile)")
            let listed = try await scene.run("lookup; downloads")
            #expect(listed.standardOutput.contains("background · "), "\(listed.standardOutput)")
            let cancelled = try await scene.run("lookup; cancel 3")
            #expect(cancelled.standardOutput.contains("cancelled 3 (in the background)"), "\(cancelled.standardOutput)")
        }
    }
}

/// The `confirmedBytes` a sidecar holds now (0 when it is missing or unreadable).
private func confirmedBytes(_ sidecar: URL) -> Int {
    guard let data = try? Data(contentsOf: sidecar),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return 0 }
    return object["confirmedBytes"] as? Int ?? 0
}
