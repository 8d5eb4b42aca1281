import FixtureServer
import Foundation
import Playback
import Processes
import Synchronization
import Testing

/// The real mpv, without sound or video, playing a generated tone.
@Suite(
    .serialized,
    // In CI (which installs mpv) a missing mpv fails these tests instead of skipping them.
    .enabled(
        if: ForegroundProcess.find("mpv") != nil || ProcessInfo.processInfo.environment["CI"] != nil,
        "mpv is not installed"
    )
)
struct MPVPlaybackTests {
    static let mpv = PlayerCommand("mpv --no-config --ao=null --vo=null")

    /// A WAV file of `seconds` seconds in a new folder.
    static func tone(seconds: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-tone-\(UUID().uuidString).wav")
        try Data(ToneMedia(seconds: seconds).allBytes).write(to: url)
        return url
    }

    /// Events as they come, for a test to wait on.
    final class Events: Sendable {
        private let seen = Mutex<[PlaybackEvent]>([])

        func append(_ event: PlaybackEvent) { seen.withLock { $0.append(event) } }
        var all: [PlaybackEvent] { seen.withLock { $0 } }

        /// Waits (at most `timeout`) until an event satisfies `condition`.
        func wait(timeout: Duration = .seconds(20), for condition: (PlaybackEvent) -> Bool) async -> PlaybackEvent? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let match = all.first(where: condition) { return match }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    /// The chapters inside a file, as mpv's `chapter-list` has them: an MP3's ID3
    /// CHAP frames; none in a WAV, and none asked of a player that is not mpv.
    @Test func chaptersInsideAFileAreReadThroughMPV() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-\(UUID().uuidString).mp3")
        try Data(ChapteredMedia().allBytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let chapters = try await Player.chapters(inFile: file.path, with: Self.mpv)
        #expect(
            chapters == ChapteredMedia.chapters.map { PlayRequest.Chapter(start: Double($0.start), title: $0.title) }
        )
        let tone = try Self.tone(seconds: 1)
        defer { try? FileManager.default.removeItem(at: tone) }
        #expect(try await Player.chapters(inFile: tone.path, with: Self.mpv).isEmpty)
        #expect(try await Player.chapters(inFile: "/nonexistent/file.mp3", with: Self.mpv).isEmpty)
        #expect(try await Player.chapters(inFile: file.path, with: PlayerCommand("mpg123 {}")).isEmpty)
    }

    @Test func playsToTheEndAtTheSpeedAsked() async throws {
        let file = try Self.tone(seconds: 4)
        defer { try? FileManager.default.removeItem(at: file) }
        let events = Events()
        let end = try await Player.play(
            PlayRequest(source: file.path, title: "Tone", start: 1, speed: 2, terminal: false),
            with: Self.mpv
        ) { events.append($0) }
        #expect(end.reason == .endOfFile)
        #expect(end.finished)
        #expect(events.all.first.map { if case .controlling = $0 { true } else { false } } == true)
        guard
            case .started(_, let from, let speed, _) = events.all.first(where: {
                if case .started = $0 { true } else { false }
            })
        else {
            Issue.record("no started event: \(events.all)")
            return
        }
        #expect(abs(from - 1) < 0.1)
        #expect(speed == 2)
    }

    /// mpv plays with the chapters it is given (read from the file feedsh writes
    /// for its --chapters-file) and says as it enters each.
    @Test func mpvIsGivenTheChaptersAndSaysWhenEachBegins() async throws {
        let file = try Self.tone(seconds: 4)
        defer { try? FileManager.default.removeItem(at: file) }
        let events = Events()
        let end = try await Player.play(
            PlayRequest(
                source: file.path,
                title: "Tone",
                speed: 2,
                terminal: false,
                chapters: [.init(start: 0, title: "Opening"), .init(start: 2, title: "Close")]
            ),
            with: Self.mpv
        ) { events.append($0) }
        #expect(end.reason == .endOfFile)
        let chapters = events.all.compactMap { if case .chapter(let number) = $0 { number } else { nil } }
        #expect(chapters == [1, 2], "\(events.all)")
    }

    @Test func aStreamThatCannotBeOpenedFailsWithMPVsReason() async throws {
        let end = try await Player.play(
            PlayRequest(source: "http://127.0.0.1:9/nothing.wav", title: "Nothing", terminal: false),
            with: Self.mpv
        ) { _ in }
        guard case .failed = end.reason else {
            Issue.record("expected a failure, got \(end)")
            return
        }
        #expect(!end.finished)
    }

    /// `play` cancelled (Ctrl-C at the prompt) sends mpv `quit` through its IPC.
    @Test func cancellingAsksThePlayerToQuitAndStillReportsTheEnd() async throws {
        let file = try Self.tone(seconds: 120)
        defer { try? FileManager.default.removeItem(at: file) }
        let events = Events()
        let playing = Task {
            try await Player.play(
                PlayRequest(source: file.path, title: "Tone", terminal: false),
                with: Self.mpv
            ) { events.append($0) }
        }
        _ = await events.wait { if case .position(let seconds, _) = $0 { seconds >= 1 } else { false } }
        playing.cancel()
        let end = try await playing.value
        #expect(end.reason == .quit)
        #expect((1..<10).contains(end.position ?? -1))
    }
}
