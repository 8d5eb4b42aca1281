import Downloads
import FeedKit
import FeedServices
import FixtureData
import FixtureServer
import Foundation
import ShellKit
import Testing

@testable import FeedShell

/// Every file under `directory`, relative to it.
private func files(in directory: URL) -> [String] {
    (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []).filter {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(
            atPath: directory.appendingPathComponent($0).path,
            isDirectory: &isDirectory
        )
        return exists && !isDirectory.boolValue
    }.sorted()
}

@Suite("image and artwork")
struct ImageCommandTests {
    private func cache(_ h: ShellHarness) -> URL {
        h.downloads.appendingPathComponent(".cache/images")
    }

    @Test func downloadsDescribesAndThenReusesTheCachedCopy() async throws {
        try await ShellHarness.run { h in
            let url = h.server.url("/images/photo.png").absoluteString
            #expect(await h.run("image \(url)") == .success)
            let lines = h.output.standardOutput.split(separator: "\n")
            let path = try #require(lines.first.map(String.init))
            #expect(path.hasPrefix(cache(h).path) && path.hasSuffix("-photo.png"))
            #expect(lines.last == "85.7 kB · image/png · 200×150 PNG")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(FixtureFiles.all["images/photo.png"]!))
            // Not a terminal: progress as lines, at most one per tenth.
            #expect(h.output.standardError.contains("100.0% of 85.7 kB"))

            h.output.clear()
            #expect(await h.run("image \(url)") == .success)
            #expect(h.output.standardOutput.contains("not modified, cached copy"))
            let conditional = h.server.requests.last { $0.path == "/images/photo.png" }
            #expect(conditional != nil)
            #expect(files(in: cache(h)).count == 2)  // the image and its .meta.json
        }
    }

    /// Links planted in the cache are replaced or refused, never written through.
    @Test func linksInTheCacheAreNeverFollowed() async throws {
        try await ShellHarness.run { h in
            let url = h.server.url("/images/photo.png")
            #expect(await h.run("image \(url.absoluteString)") == .success)
            let path = try #require(h.output.standardOutput.split(separator: "\n").first.map(String.init))
            let victim = h.downloads.appendingPathComponent("victim")
            try Data("precious".utf8).write(to: victim)
            // A link at the image's own name is no cached copy: a fresh download
            // replaces the link itself.
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim.path)
            h.output.clear()
            #expect(await h.run("image \(url.absoluteString)") == .success)
            #expect(!h.output.standardOutput.contains("not modified"))
            #expect(try Data(contentsOf: victim) == Data("precious".utf8))
            // The image's name holds the image now, not a link.
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(FixtureFiles.all["images/photo.png"]!))
            // A link at the .part name is refused with a reason.
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path + ".part", withDestinationPath: victim.path)
            h.output.clear()
            #expect(await h.run("image \(url.absoluteString)") == .failure)
            #expect(h.output.standardError.contains("symbolic link"))
            #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        }
    }

    @Test(arguments: ["not-an-image.png", "lying.png", "nothere.png"])
    func whatIsNotAnImageLeavesNothing(name: String) async throws {
        try await ShellHarness.run { h in
            let status = await h.run("image \(h.server.url("/images/\(name)").absoluteString)")
            #expect(status == .failure)
            #expect(!h.output.standardError.isEmpty)
            #expect(files(in: cache(h)).isEmpty)
        }
    }

    @Test func cancellingStopsTheTransferAndLeavesNothing() async throws {
        try await ShellHarness.run { h in
            // 85 kB at 8 kB/s: about ten seconds unless cancelled.
            let url = h.server.url("/fault/rate=8000/images/photo.png").absoluteString
            let command = Task { await h.shell.runInteractive(line: "image \(url)") }
            while !h.output.standardError.contains("% of 85.7 kB") { try await Task.sleep(for: .milliseconds(20)) }
            command.cancel()
            _ = await command.value
            #expect(h.output.standardError.contains("interrupted"))
            #expect(h.output.standardOutput.isEmpty)
            #expect(files(in: cache(h)).isEmpty)
        }
    }

    @Test func artworkOfTheLoadedPodcast() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("artwork") == .failure)
            h.output.clear()
            #expect(await h.run("lookup; artwork") == .success)
            #expect(h.output.standardOutput.hasSuffix("1.6 kB · image/jpeg · 600×600 JPEG\n"))
        }
    }

    @Test func progressRedrawsOneLineOnATerminal() async throws {
        let output = CapturedOutput()
        let events = EventRenderer(
            console: Console(sink: output, isTerminal: true, width: 80, errorIsTerminal: true)
        )
        let label = DownloadLabel(number: "x", title: "")
        for bytes in [100, 450, 1000] {
            let progress = DownloadProgress(bytes: Int64(bytes), total: 1000, bytesPerSecond: 0)
            events.report(.download(label, .progress(id: "x", progress)))
        }
        events.report(.progressEnded)
        #expect(
            output.standardError
                == "\r\u{1B}[K10.0% of 1.0 kB\r\u{1B}[K45.0% of 1.0 kB\r\u{1B}[K100.0% of 1.0 kB\r\u{1B}[K"
        )
    }
}

@Suite("tracks and preview")
struct MusicCommandTests {
    @Test func listsSongsAndDownloadsAPreviewThroughTheEngine() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("preview 1") == .failure)
            #expect(h.output.standardError.contains("run 'tracks TERM' first"))
            h.output.clear()
            #expect(await h.run("tracks syn & ack; preview 2; wait t2") == .success)
            let out = h.output.standardOutput
            #expect(out.contains("2    5:05  yes      Keep‑Alive · Syn & Ack · Three Ways"))
            #expect(out.contains("downloading t2: Keep‑Alive"))
            #expect(h.output.standardError.contains("downloaded t2 Keep‑Alive"))
            let file = h.downloads.appendingPathComponent("previews/2000000005.m4a")
            let expected = SyntheticMedia(key: "previews/2000000005.plus.aac.p.m4a").allBytes
            let data = try Data(contentsOf: file)
            #expect(data == Data(expected))
        }
    }

    @Test func pauseResumeAndCancelTakeSongSelectors() async throws {
        try await ShellHarness.run(mediaRate: 200_000) { h in
            await h.type("tracks loopbacks")
            await h.type("preview 1")
            while true {
                if case .running(let progress?) = await h.shell.session.services.downloads.engine.state(
                    of: "preview-2000000001"
                ),
                    progress.bytes > 0
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            await h.type("pause t1")
            #expect(h.output.standardOutput.contains("paused t1 at"))
            let part = h.downloads.appendingPathComponent("previews/2000000001.m4a.part")
            #expect(FileManager.default.fileExists(atPath: part.path))
            h.output.clear()
            await h.type("resume t1")
            #expect(h.output.standardOutput.contains("resuming t1 at"))
            await h.type("cancel t1")
            #expect(h.output.standardOutput.contains("cancelled t1"))
            await h.type("preview 3")
            #expect(h.output.standardError.contains("t3 Time to Live has no preview"))
        }
    }
}

@Suite("met")
struct MetCommandTests {
    @Test func searchListsObjectsAndReportsTheOneThatFailed() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("met search cypress") == .success)
            let out = h.output.standardOutput
            #expect(
                out.contains("436101  1889      yes    Wheat Field with Cypresses · Vincent van Gogh · Oil on canvas")
            )
            #expect(out.contains("436103  ca. 1889  no     Study of a Cypress"))
            #expect(out.contains("436107  -         -      (failed: HTTP 500"))
            #expect(out.contains("1 of 4 objects could not be loaded"))
            let search = try #require(h.server.requests.first { $0.path == "/public/collection/v1/search" })
            #expect(search.query == "q=cypress")
        }
    }

    @Test func noHitsIsNotAFailure() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("met search nothing like it") == .success)
            #expect(h.output.standardOutput == "no objects match 'nothing like it'\n")
        }
    }

    @Test func objectInFullWithEntitiesDecoded() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("met object 436106") == .success)
            #expect(h.output.standardOutput.hasPrefix("Portrait of a Woman \"Anna\"\n"))
            #expect(h.output.standardOutput.contains("artist:     Unknown & Workshop"))
            #expect(await h.run("met object 5") == .failure)
            #expect(h.output.standardError.contains("no Met object 5"))
        }
    }

    @Test func imageOfAnObject() async throws {
        try await ShellHarness.run { h in
            #expect(await h.run("met image 436105") == .success)
            #expect(h.output.standardOutput.contains("32 B · image/webp · 100×80 WebP"))
            #expect(await h.run("met image 436103") == .failure)
        }
    }

    @Test func aNewSearchCancelsTheOneRunning() async throws {
        try await ShellHarness.run { h in
            let session = h.shell.session
            let (started, signal) = AsyncStream.makeStream(of: Void.self)
            let first = Task {
                await session.sources.runMetSearch { () async -> Bool in
                    signal.yield()
                    try? await Task.sleep(for: .seconds(60))
                    return Task.isCancelled
                }
            }
            var iterator = started.makeAsyncIterator()
            await iterator.next()
            let second = await session.sources.runMetSearch { () async -> Bool in Task.isCancelled }
            #expect(second == false)
            #expect(await first.value == nil)  // cancelled by the second
        }
    }
}

@Suite("--json")
struct JSONOutputTests {
    /// Every line of standard output as a JSON object.
    private func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                "not a JSON object: \(line)"
            )
        }
    }

    @Test func everyCommandWritesOneObjectAndNothingElse() async throws {
        try await ShellHarness.run(json: true) { h in
            let script = """
                lookup; episodes; show 2; posts --limit 2; post 3; search radio; tracks loop; \
                met search cypress; met object 436101; image \(h.server.url("/images/tiles.gif")); \
                downloads; help get; nosuchcommand; get 1; wait
                """
            #expect(await h.run(script, keepGoing: true) == .failure)
            let lines = try objects(h.output.standardOutput)
            let results = lines.filter { $0["command"] != nil }
            #expect(
                results.compactMap { $0["command"] as? String } == [
                    "lookup", "episodes", "show", "posts", "post", "search", "tracks", "met", "met", "image",
                    "downloads",
                    "help", "nosuchcommand", "get", "wait",
                ]
            )
            for result in results {
                let ok = try #require(result["ok"] as? Bool)
                if ok {
                    #expect(result["result"] != nil)
                } else {
                    let error = try #require(result["error"] as? [String: Any])
                    #expect(error["code"] as? String == "unknown-command")
                    #expect(error["message"] is String)
                }
            }
            let events = lines.filter { $0["event"] != nil }
            #expect(events.contains { $0["event"] as? String == "completed" && $0["path"] is String })
            #expect(events.allSatisfy { $0["id"] is String && $0["label"] is String })
            let episodes = try #require(results[1]["result"] as? [[String: Any]])
            #expect(episodes.count == 5 && episodes[0]["number"] as? Int == 1 && episodes[0]["status"] != nil)
            let image = try #require(results[9]["result"] as? [String: Any])
            #expect(image["width"] as? Int == 64 && image["format"] as? String == "GIF")
            #expect(h.output.standardError.isEmpty)
        }
    }

    @Test func stringsAreEscapedNotSanitized() {
        let value = JSONValue.object([.init(key: "t", value: .string("a\"b\\c\n\u{1B}[31m\u{7}é"))])
        #expect(value.text == #"{"t":"a\"b\\c\n\u001b[31m\u0007é"}"#)
    }
}
