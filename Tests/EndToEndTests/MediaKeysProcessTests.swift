import Foundation
import Subprocess
import Synchronization
import Testing

/// Whether the media keys' tests run: where playerctl and a D-Bus daemon are
/// installed, and always in CI (which installs them).
let mediaKeysTestsRun =
    ProcessInfo.processInfo.environment["CI"] != nil
    || ["playerctl", "dbus-daemon"].allSatisfy { program in
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

/// `play` as an MPRIS player, through the binary, the real mpv and the real
/// `playerctl` on a session bus of the test's own (dbus-daemon): what it shows,
/// pausing, seeking, Next to the next chapter and on to the queue's next
/// episode, Stop, and the place moved that way saved.
@Suite(
    "Media keys",
    .serialized,
    .enabled(if: listeningTestsRun && mediaKeysTestsRun, "mpv, playerctl or dbus-daemon is not installed")
)
struct MediaKeysProcessTests {
    typealias Scene = ListeningProcessTests.Scene

    /// A session bus for one test, gone with it.
    final class PrivateBus: Sendable {
        private let process: Foundation.Process
        let address: String

        init() throws {
            let process = Foundation.Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
            process.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            self.process = process
            // The daemon prints its address once listening, then nothing more.
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line += chunk
            }
            address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard address.hasPrefix("unix:") else {
                process.terminate()
                throw CocoaError(.fileReadUnknown)
            }
        }

        deinit {
            if process.isRunning { process.terminate() }
        }

        /// What `playerctl WORDS` prints on this bus.
        func playerctl(_ words: String...) async throws -> String {
            try await playerctl(words)
        }

        private func playerctl(_ words: [String]) async throws -> String {
            let result = try await Subprocess.run(
                .name("playerctl"),
                arguments: Arguments(words),
                environment: .inherit.updating(["DBUS_SESSION_BUS_ADDRESS": address]),
                output: .string(limit: 1 << 16),
                error: .discarded
            )
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Asks `playerctl -p feedsh WORDS` until it prints `wanted` (or a number
        /// within ``MediaKeysProcessTests/slack`` of `near`), for up to 10 seconds;
        /// returns the last answer.
        @discardableResult
        func waitFor(_ words: [String], toBe wanted: String? = nil, near: Double? = nil) async throws -> String {
            func accepts(_ answer: String) -> Bool {
                if let wanted { return answer == wanted }
                guard let near, let number = Double(answer) else { return false }
                return abs(number - near) < MediaKeysProcessTests.slack
            }
            let deadline = ContinuousClock.now + .seconds(10)
            var answer = ""
            while ContinuousClock.now < deadline {
                answer = try await playerctl(["-p", "feedsh"] + words)
                if accepts(answer) { return answer }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("playerctl \(words.joined(separator: " ")) never gave what was wanted; last: \(answer)")
            return answer
        }
    }

    /// Lines `playerctl --follow` prints as signals arrive, in the background.
    final class Follower: Sendable {
        private final class Lines: Sendable {
            let text = Mutex("")
        }

        private let process: Foundation.Process
        private let lines = Lines()

        init(_ words: [String], bus: PrivateBus) throws {
            let process = Foundation.Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/playerctl")
            process.arguments = ["-p", "feedsh", "--follow"] + words
            process.environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            self.process = process
            let handle = output.fileHandleForReading
            Thread.detachNewThread { [lines] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    lines.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
                }
            }
        }

        deinit {
            if process.isRunning { process.terminate() }
        }

        var text: String { lines.text.withLock { $0 } }

        func waitFor(_ wanted: String) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if text.contains(wanted) { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
    }

    /// How far a place may read from where it was sent: a paused mpv without
    /// audio output reads a seek's place early, by 0.2 s here and by up to 0.4 s
    /// on a starved machine. Every move checked is 1 s or more.
    static let slack = 0.5

    /// mpv's own reading of where it is.
    func place(_ pid: Int32) async throws -> Double {
        try await mpvProperty("time-pos", of: pid) as? Double ?? -1
    }

    /// Waits (10 s at most) for mpv's place to satisfy `wanted`; returns it.
    func waitForPlace(_ pid: Int32, _ wanted: (Double) -> Bool) async throws -> Double {
        let deadline = ContinuousClock.now + .seconds(10)
        var seconds = try await place(pid)
        while !wanted(seconds), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            seconds = try await place(pid)
        }
        return seconds
    }

    @Test func playerctlFollowsAndMovesAQueue() async throws {
        try await Scene.with { scene in
            let bus = try PrivateBus()
            let setUp = try await scene.run(
                "subscribe \(scene.base)/feeds/chaptered.xml; subscribe \(scene.feed); queue add 1:1; queue add 2:1"
            )
            #expect(setUp.status == 0, "\(setUp.standardError)")
            let live = try LiveFeedsh(
                ["--json", "-c", "play queue"],
                environment: scene.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
            )
            let started = try await live.waitFor { $0["event"] as? String == "started" }
            let first = Int32(started["pid"] as? Int ?? 0)
            #expect(try await bus.waitFor(["status"], toBe: "Playing") == "Playing")
            let shown = try await bus.playerctl(
                "-p",
                "feedsh",
                "metadata",
                "--format",
                "{{xesam:title}}|{{xesam:album}}|{{xesam:artist}}|{{mpris:length}}|{{mpris:trackid}}"
            )
            // playerctl quotes an object path.
            let fields = shown.split(separator: "|").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
            #expect(fields.count == 5, "\(shown)")
            #expect(Array(fields.prefix(3)) == ["Chapters inside", "Chapters Inside", "feedsh fixtures"], "\(shown)")
            #expect(abs((Double(fields.count == 5 ? fields[3] : "") ?? 0) - 9_981_938) < 100_000, "\(shown)")
            #expect(fields.last?.hasPrefix("/org/feedsh/episode/") == true, "\(shown)")

            // Pausing is signalled (PropertiesChanged reaches --follow) and mpv pauses.
            let follower = try Follower(["status"], bus: bus)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await bus.playerctl("-p", "feedsh", "pause")
            #expect(try await follower.waitFor("Paused"), "\(follower.text)")
            #expect(try await mpvProperty("pause", of: first) as? Bool == true)

            // Rate is the speed (set through D-Bus's own client: playerctl has no verb for it).
            let rate = try await Subprocess.run(
                .name("dbus-send"),
                arguments: [
                    "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.feedsh", "/org/mpris/MediaPlayer2",
                    "org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player", "string:Rate",
                    "variant:double:1.5",
                ],
                environment: .inherit.updating(["DBUS_SESSION_BUS_ADDRESS": bus.address]),
                output: .discarded,
                error: .string(limit: 1 << 16)
            )
            #expect(rate.terminationStatus.isSuccess, "\(rate.standardError)")
            let deadline = ContinuousClock.now + .seconds(10)
            while try await mpvProperty("speed", of: first) as? Double != 1.5, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await mpvProperty("speed", of: first) as? Double == 1.5)

            // SetPosition (with the track's id) and Seek move mpv; Next goes to
            // chapter 2 (4 s), each within `slack` as mpv reads it.
            func near(_ seconds: Double) -> (Double) -> Bool { { abs($0 - seconds) < Self.slack } }
            // Each step waits for feedsh's reading too (playerctl's position):
            // a relative Seek and Next start from it, and mpv's event that moves
            // it may come after mpv answers a direct question.
            _ = try await bus.playerctl("-p", "feedsh", "position", "2")
            #expect(near(2)(try await waitForPlace(first, near(2))))
            let read = Double(try await bus.waitFor(["position"], near: 2)) ?? -1
            // Seek is relative to the place as feedsh read it; mpv reads a paused
            // place drifting back after a seek (more on a starved machine), so
            // the check is that it moved on by about the second asked.
            _ = try await bus.playerctl("-p", "feedsh", "position", "1+")
            let moved = try await waitForPlace(first) { $0 >= read + 0.4 }
            #expect(moved >= read + 0.4 && moved <= read + 1.5, "from \(read) to \(moved)")
            _ = try await bus.waitFor(["position"], near: moved)
            _ = try await bus.playerctl("-p", "feedsh", "next")
            #expect(near(4)(try await waitForPlace(first, near(4))))
            let position = Double(try await bus.waitFor(["position"], near: 4)) ?? -1
            #expect(near(4)(position), "\(position)")

            // At the last chapter, Next is the queue's next episode (the new
            // episode is signalled: --follow sees it); the place
            // left (paused, as mpv reads it now) is the one to be saved.
            let left = try await place(first)
            let albums = try Follower(["metadata", "xesam:album"], bus: bus)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await bus.playerctl("-p", "feedsh", "next")
            let second = try await live.waitFor {
                $0["event"] as? String == "started" && $0["number"] as? String == "2:1"
            }
            #expect(second["pid"] as? Int != Int(first))
            let title = try await bus.waitFor(["metadata", "xesam:album"], toBe: "Tones for Listening")
            #expect(title == "Tones for Listening")
            #expect(try await albums.waitFor("Tones for Listening"), "\(albums.text)")

            // Stop ends the run, as Ctrl-C would.
            _ = try await bus.playerctl("-p", "feedsh", "stop")
            let result = try await live.finish()
            #expect(result.status == 0, "\(result.standardError)")
            let lines = jsonLines(result.standardOutput)
            #expect(lines.filter { $0["event"] as? String == "started" }.count == 2, "\(result.standardOutput)")

            // The place moved through the media keys is the one saved.
            let saved = try await scene.episode(1)["position"] as? Double ?? -1
            #expect(abs(saved - left) < 0.05, "saved \(saved), mpv's place \(left)")
            #expect(try await bus.playerctl("-l").contains("feedsh") == false)
        }
    }

    /// `set mpris off`: nothing on the bus; nor with a player other than mpv;
    /// and with no bus at all, `play` says nothing of one.
    @Test func offOrWithoutABusNothingIsThere() async throws {
        try await Scene.with { scene in
            let bus = try PrivateBus()
            let setUp = try await scene.run("subscribe \(scene.base)/feeds/chaptered.xml; set mpris off")
            #expect(setUp.status == 0, "\(setUp.standardError)")
            let live = try LiveFeedsh(
                ["--json", "-c", "play 1:1"],
                environment: scene.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
            )
            let started = try await live.waitFor { $0["event"] as? String == "started" }
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await bus.playerctl("-l").contains("feedsh") == false)
            try await sendQuit(toMPV: Int32(started["pid"] as? Int ?? 0))
            #expect(try await live.finish().status == 0)

            let on = try await scene.run("set mpris on")
            #expect(on.status == 0)
            // A player other than mpv cannot be followed or moved: no media player.
            let other = try LiveFeedsh(
                ["-c", "play 1:1"],
                environment: scene.environment.merging([
                    "DBUS_SESSION_BUS_ADDRESS": bus.address, "FEEDSH_PLAYER": "sh -c 'sleep 2' player {}",
                ]) { $1 }
            )
            try await Task.sleep(for: .milliseconds(800))
            #expect(try await bus.playerctl("-l").contains("feedsh") == false)
            #expect(try await other.finish().status == 0)
            let unreachable = try await scene.run(
                "play 1:1 --at 0:09",
                environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(scene.root.path)/no-bus"]
            )
            #expect(unreachable.status == 0, "\(unreachable.standardError)")
            #expect(!unreachable.standardError.lowercased().contains("bus"), "\(unreachable.standardError)")
        }
    }
}
