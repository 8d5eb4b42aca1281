import Foundation
import Subprocess
import SystemPackage
import Testing

/// `clip` through the binary and the real FFmpeg, on the habits feed's two
/// downloaded WAV tones: the span cut and tagged, the transcript beside it,
/// a bookmark with --length into another kind of file, and the refusals that
/// write nothing.
@Suite("Clips", .serialized)
struct ClipProcessTests {
    typealias Scene = ServeProcessTests.Scene

    func run(_ scene: Scene, _ commands: String, json: Bool = false) async throws -> FeedshResult {
        try await runFeedsh((json ? ["--json"] : []) + ["-c", commands], environment: scene.environment)
    }

    /// What ffprobe says of a file: its length as played (less an MP3
    /// encoder's delay) and its tags.
    func probe(_ file: String) async throws -> (seconds: Double, tags: [String: String]) {
        let result = try await Subprocess.run(
            .name("ffprobe"),
            arguments: [
                "-v", "error", "-select_streams", "a:0", "-show_entries",
                "format=duration:format_tags:stream=start_time", "-of", "json", file,
            ],
            output: .string(limit: 1 << 16)
        )
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        let format = object?["format"] as? [String: Any] ?? [:]
        let start = ((object?["streams"] as? [[String: Any]])?.first?["start_time"] as? String).flatMap(Double.init)
        let tags = (format["tags"] as? [String: String] ?? [:]).reduce(into: [String: String]()) {
            $0[$1.key.lowercased()] = $1.value
        }
        return ((Double(format["duration"] as? String ?? "") ?? -1) - max(0, start ?? 0), tags)
    }

    @Test func aSpanIsCutTaggedAndItsTranscriptWrittenBeside() async throws {
        try await Scene.with { scene in
            let made = try await run(scene, "transcript 1:1; clip 1:1 0:05 0:25 --transcript", json: true)
            #expect(made.status == 0, "\(made.standardError)")
            let entry = try #require(jsonLines(made.standardOutput).last?["result"] as? [String: Any])
            let path = try #require(entry["path"] as? String)
            #expect(path == scene.downloads.appendingPathComponent("clips/1-1_0m05s-0m25s.wav").path)
            // WAV's packets are a quarter of a second: a copy overshoots, so PCM
            // is written again, sample for sample.
            #expect(entry["reencoded"] as? Bool == true)
            let (seconds, tags) = try await probe(path)
            #expect(abs(seconds - 20) <= 0.1, "\(seconds)")
            #expect(tags["title"] == "Sponsored: 40 seconds (0:05–0:25)", "\(tags)")
            #expect(tags["album"] == "Listening Habits", "\(tags)")
            #expect(tags["comment"]?.hasSuffix("0:05–0:25") == true, "\(tags)")
            let srt = try String(contentsOfFile: try #require(entry["transcript"] as? String), encoding: .utf8)
            #expect(srt.hasPrefix("1\n00:00:00,000 --> 00:00:05,000\nWelcome to the habits show.\n"), "\(srt)")
            #expect(srt.contains("2\n00:00:05,000 --> 00:00:15,000\nThis part is brought to you by Acme.\n"), "\(srt)")
            #expect(srt.contains("3\n00:00:15,000 --> 00:00:20,000\nThe story of the quiet lighthouse begins.\n"))
            // The same again exists: refused, and the clip is as it was.
            let again = try await run(scene, "clip 1:1 0:05 0:25")
            #expect(again.status == 1)
            #expect(again.standardError.contains("exists: remove it or name another FILE"), "\(again.standardError)")
            let listed = try await run(scene, "clips", json: true)
            let clips = jsonLines(listed.standardOutput).last?["result"] as? [[String: Any]] ?? []
            #expect(clips.map { $0["ref"] as? String } == ["1:1"])
        }
    }

    /// An MP3 (frames of 26 ms) is cut as it is, without encoding again.
    @Test func anMP3IsCutWithoutEncodingAgain() async throws {
        try await withServerAndFolder { server, root in
            let environment = [
                "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("downloads").path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
            ]
            let made = try await runFeedsh(
                [
                    "--json", "-c",
                    "subscribe \(server.baseURL.absoluteString)/feeds/chaptered.xml; get 1:1; wait; clip 1:1 0:02 0:06",
                ],
                environment: environment
            )
            #expect(made.status == 0, "\(made.standardError)")
            let entry = try #require(jsonLines(made.standardOutput).last?["result"] as? [String: Any])
            #expect(entry["reencoded"] as? Bool == false)
            let (seconds, _) = try await probe(try #require(entry["path"] as? String))
            #expect(abs(seconds - 4) <= 0.1, "\(seconds)")
        }
    }

    @Test func aBookmarksLengthIntoAnotherKindAndTheRefusals() async throws {
        try await Scene.with { scene in
            let file = scene.root.appendingPathComponent("gap.mp3").path
            let made = try await run(scene, "bookmark 1:2 0:10 the gap; clip b1 --length 5s \(file)", json: true)
            #expect(made.status == 0, "\(made.standardError)")
            let entry = try #require(jsonLines(made.standardOutput).last?["result"] as? [String: Any])
            #expect(entry["reencoded"] as? Bool == true)
            #expect(entry["start"] as? Double == 10 && entry["end"] as? Double == 15)
            let (seconds, tags) = try await probe(file)
            #expect(abs(seconds - 5) <= 0.1, "\(seconds)")
            #expect(tags["title"] == "Gap: 30 seconds, silent from 5 to 15 (0:10–0:15)", "\(tags)")
            // Refusals name what would do and write nothing.
            let clips = scene.downloads.appendingPathComponent("clips")
            let outside = try await run(scene, "clip 1:1 0:30 0:50")
            #expect(outside.status == 1)
            #expect(
                outside.standardError.contains("0:30-0:50 is not within 1:1, which is 0:40 long"),
                "\(outside.standardError)"
            )
            let noTranscript = try await run(scene, "clip 1:2 0:01 0:02 --transcript")
            #expect(noTranscript.standardError.contains("'transcript 1:2' fetches it"), "\(noTranscript.standardError)")
            let deleted = try await run(scene, "delete 1:2; clip 1:2 0:01 0:03")
            #expect(deleted.status == 1)
            #expect(deleted.standardError.contains("1:2 is not downloaded"), "\(deleted.standardError)")
            let backwards = try await run(scene, "clip 1:1 0:20 0:10")
            #expect(backwards.standardError.contains("a later TO"), "\(backwards.standardError)")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: clips.path)) ?? []).isEmpty)
            let listed = try await run(scene, "clips", json: true)
            #expect((jsonLines(listed.standardOutput).last?["result"] as? [[String: Any]])?.count == 1)
        }
    }
}
