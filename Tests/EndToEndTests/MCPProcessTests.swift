import FixtureServer
import Foundation
import Subprocess
import SystemPackage
import Testing

/// `feedsh mcp` driven by the MCP reference SDK for Python (`Scripts/mcp-client.py`
/// over stdio): the tools listed, each called, bad arguments answered as tool
/// errors that name them, and changes refused without `--allow-changes`.
@Suite("MCP", .serialized)
struct MCPProcessTests {
    static let readOnly = [
        "search", "subscriptions", "episodes", "episode", "transcript", "new", "queue", "playlists", "playlist",
        "stats",
    ]

    struct Scene {
        let server: FixtureServer
        let root: URL
        var base: String { server.baseURL.absoluteString }
        var environment: [String: String] {
            [
                "FEEDSH_DOWNLOAD_DIR": root.appendingPathComponent("downloads").path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
            ]
        }

        /// A library subscribed to the habits feed, its first episode's transcript
        /// fetched and its second episode queued.
        static func with(_ body: (Scene) async throws -> Void) async throws {
            try await withServerAndFolder(.init(mediaRate: nil)) { server, root in
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent("run"),
                    withIntermediateDirectories: true
                )
                let scene = Scene(server: server, root: root)
                let setUp = try await runFeedsh(
                    ["-c", "subscribe \(scene.base)/feeds/habits.xml; transcript 1:1; queue add 1:2"],
                    environment: scene.environment
                )
                #expect(setUp.status == 0, "\(setUp.standardError)")
                try await body(scene)
            }
        }

        /// Runs the calls through the Python client against `feedsh mcp ARGUMENTS`,
        /// one after another, or all in flight at once (`parallel`).
        func mcp(_ calls: [[String: Any]], arguments: [String] = [], parallel: Bool = false) async throws -> (
            tools: [String], calls: [[String: Any]]
        ) {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let python = root.appendingPathComponent(".build-venv/bin/python")
            guard FileManager.default.isExecutableFile(atPath: python.path) else {
                throw ServeTestError("no \(python.path): 'make test-deps' makes the venv with mcp")
            }
            let given: Any = parallel ? ["parallel": true, "calls": calls] : calls
            let json = String(decoding: try JSONSerialization.data(withJSONObject: given), as: UTF8.self)
            let home = self.root.appendingPathComponent("home")
            let result = try await Subprocess.run(
                .path(FilePath(python.path)),
                arguments: Arguments(
                    [root.appendingPathComponent("Scripts/mcp-client.py").path, json, feedshBinary.path, "mcp"]
                        + arguments
                ),
                environment: .custom(
                    testEnvironment(environment, home: home).reduce(into: [:]) {
                        $0[.init(stringLiteral: $1.key)] = $1.value
                    }
                ),
                output: .string(limit: 1 << 24),
                error: .string(limit: 1 << 20)
            )
            guard result.terminationStatus.isSuccess,
                let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            else { throw ServeTestError("mcp-client.py: \(result.standardError)") }
            return (object["tools"] as? [String] ?? [], object["calls"] as? [[String: Any]] ?? [])
        }
    }

    @Test func readOnlyToolsAnswerWithStructuredJSONAndRefuseChanges() async throws {
        try await Scene.with { scene in
            let (tools, calls) = try await scene.mcp([
                ["tool": "subscriptions"],
                ["tool": "episodes", "arguments": ["podcast": 1]],
                ["tool": "episode", "arguments": ["ref": "1:1"]],
                ["tool": "search", "arguments": ["words": "acme"]],
                ["tool": "transcript", "arguments": ["ref": "1:1", "from": 10, "to": "0:25"]],
                ["tool": "new"],
                ["tool": "queue"],
                ["tool": "stats"],
                // Bad arguments, and a change without --allow-changes.
                ["tool": "episodes", "arguments": [:]],
                ["tool": "episode", "arguments": ["ref": "1:9"]],
                ["tool": "episode", "arguments": ["ref": "one"]],
                ["tool": "search", "arguments": ["words": 5]],
                ["tool": "queue_add", "arguments": ["ref": "1:1"]],
            ])
            #expect(tools == Self.readOnly)
            #expect(calls.count == 13)
            func structured(_ index: Int) -> [String: Any] { calls[index]["structured"] as? [String: Any] ?? [:] }
            for index in 0..<8 { #expect(calls[index]["isError"] as? Bool == false, "\(calls[index])") }
            let subscriptions = structured(0)["subscriptions"] as? [[String: Any]]
            // One vocabulary: the same keys, and values, as podcasts --json.
            let shell = try await runFeedsh(["--json", "-c", "podcasts"], environment: scene.environment)
            let podcasts = jsonLines(shell.standardOutput).last?["result"] as? [[String: Any]]
            #expect(subscriptions?.first.map { Set($0.keys) } == podcasts?.first.map { Set($0.keys) })
            func canonical(_ rows: [[String: Any]]?) throws -> String {
                String(
                    decoding: try JSONSerialization.data(withJSONObject: rows ?? [], options: .sortedKeys),
                    as: UTF8.self
                )
            }
            #expect(try canonical(subscriptions) == canonical(podcasts))
            // And search = find, queue = queue.
            let more = try await runFeedsh(["--json", "-c", "find acme; queue"], environment: scene.environment)
            let answers = jsonLines(more.standardOutput).compactMap { $0["result"] as? [[String: Any]] }
            #expect(answers.count == 2, "\(more.standardOutput)")
            #expect(try canonical(structured(3)["hits"] as? [[String: Any]]) == canonical(answers.first))
            #expect(try canonical(structured(6)["queue"] as? [[String: Any]]) == canonical(answers.last))
            let stats = try await runFeedsh(["--json", "-c", "stats"], environment: scene.environment)
            let shellStats = jsonLines(stats.standardOutput).last?["result"] as? [String: Any]
            #expect(structured(7).keys.sorted() == shellStats?.keys.sorted(), "\(stats.standardOutput)")
            // episodes = podcast P; episodes, and episode = show P:E (with transcriptKept beside).
            let shown = try await runFeedsh(
                ["--json", "-c", "podcast 1; episodes; show 1:1"],
                environment: scene.environment
            )
            let results = jsonLines(shown.standardOutput).compactMap { $0["result"] }
            #expect(
                try canonical(structured(1)["episodes"] as? [[String: Any]])
                    == canonical(results.dropFirst().first as? [[String: Any]])
            )
            var episode = structured(2)
            episode["transcriptKept"] = nil
            #expect(
                try canonical([episode]) == canonical([results.last as? [String: Any] ?? [:]]),
                "\(shown.standardOutput)"
            )
            #expect(subscriptions?.first?["episodeCount"] as? Int == 2)
            #expect(subscriptions?.first?["title"] as? String == "Listening Habits")
            #expect(subscriptions?.first?["feedURL"] as? String == "\(scene.base)/feeds/habits.xml")
            let episodes = structured(1)["episodes"] as? [[String: Any]] ?? []
            #expect(episodes.map { $0["ref"] as? String } == ["1:1", "1:2"])
            #expect(structured(2)["title"] as? String == "Sponsored: 40 seconds")
            #expect(structured(2)["chapters"] as? String == "\(scene.base)/chapters/sponsored.json")
            #expect(structured(2)["transcriptKept"] as? Bool == true)
            let hits = structured(3)["hits"] as? [[String: Any]] ?? []
            #expect(hits.first?["ref"] as? String == "1:1")
            #expect(hits.first?["at"] as? Double == 10)
            let paragraphs = structured(4)["paragraphs"] as? [[String: Any]] ?? []
            // A speaker's cues within 20 s make one paragraph: those said between
            // 10 s and 25 s are in the two paragraphs from 0 s and from 20 s.
            #expect(paragraphs.compactMap { $0["start"] as? Double } == [0, 20])
            let said = paragraphs.first?["text"] as? String ?? ""
            #expect(said.contains("This part is brought to you by Acme."))
            #expect((structured(6)["queue"] as? [[String: Any]])?.first?["ref"] as? String == "1:2")
            #expect(structured(7)["plays"] as? Int == 0)
            // Tool errors that name the argument.
            #expect(calls[8]["isError"] as? Bool == true)
            #expect((calls[8]["text"] as? String ?? "").contains("argument 'podcast': is required"))
            #expect(
                (calls[9]["text"] as? String ?? "").contains("argument 'ref': subscription 1 has episodes 1-2, not 9")
            )
            #expect((calls[10]["text"] as? String ?? "").contains("argument 'ref': must be P:E"))
            #expect((calls[11]["text"] as? String ?? "").contains("argument 'words': must be a string"))
            #expect(calls[12]["isError"] as? Bool == true)
            #expect((calls[12]["text"] as? String ?? "").contains("without --allow-changes"))
            // Nothing carries a terminal escape.
            let everything = String(decoding: try JSONSerialization.data(withJSONObject: calls), as: UTF8.self)
            #expect(!everything.contains("\\u001b"))
            // The queue was not changed.
            let queue = try await runFeedsh(["--json", "-c", "queue"], environment: scene.environment)
            #expect((jsonLines(queue.standardOutput).last?["result"] as? [Any])?.count == 1)
        }
    }

    @Test func withAllowChangesTheChangingToolsApply() async throws {
        try await Scene.with { scene in
            let (tools, calls) = try await scene.mcp(
                [
                    ["tool": "queue_add", "arguments": ["ref": "1:1"]],
                    ["tool": "mark", "arguments": ["ref": "1:2", "as": "played"]],
                    ["tool": "mark", "arguments": ["ref": "1:2", "as": "heard"]],
                    ["tool": "subscribe", "arguments": ["url": "\(scene.base)/feeds/listening.xml"]],
                    ["tool": "subscribe", "arguments": ["url": "file:///etc/passwd"]],
                    ["tool": "download", "arguments": ["ref": "1:2"]],
                ],
                arguments: ["--allow-changes"]
            )
            #expect(tools == Self.readOnly + ["queue_add", "mark", "download", "subscribe"])
            #expect(calls.map { $0["isError"] as? Bool } == [false, false, true, false, true, false])
            #expect((calls[2]["text"] as? String ?? "").contains("argument 'as': must be played, unplayed or old"))
            #expect((calls[3]["structured"] as? [String: Any])?["number"] as? Int == 2)
            #expect((calls[4]["text"] as? String ?? "").contains("argument 'url'"))
            #expect((calls[5]["structured"] as? [String: Any])?["state"] as? String == "downloading")
            let check = try await runFeedsh(
                ["--json", "-c", "queue; podcast 1; episodes; podcasts"],
                environment: scene.environment
            )
            let lines = jsonLines(check.standardOutput)
            // 1:1 joined the queue; 1:2, marked played, left it.
            let queue = lines.first { $0["command"] as? String == "queue" }?["result"] as? [[String: Any]]
            #expect(queue?.map { $0["ref"] as? String } == ["1:1"])
            let episodes = lines.first { $0["command"] as? String == "episodes" }?["result"] as? [[String: Any]] ?? []
            #expect(episodes.first { $0["number"] as? Int == 2 }?["played"] as? Bool == true)
            #expect((lines.first { $0["command"] as? String == "podcasts" }?["result"] as? [Any])?.count == 2)
            // The download the server started goes on in the background feedsh,
            // which finishes it with no shell's help (it was once started as the
            // feedsh-mcp helper, which refused its flags, and stayed paused).
            let downloads = scene.root.appendingPathComponent("downloads")
            let deadline = ContinuousClock.now + .seconds(30)
            func wavs() -> [URL] {
                let walker = FileManager.default.enumerator(at: downloads, includingPropertiesForKeys: nil)
                return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "wav" }
            }
            while wavs().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(wavs().count == 1, "the background feedsh did not finish the download")
            let log = scene.root.appendingPathComponent("home/.local/state/feedsh/background.log")
            let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect(!logged.contains("takes only"), "\(logged)")
            let waited = try await runFeedsh(["-c", "wait 1:2; show 1:2"], environment: scene.environment)
            #expect(waited.status == 0, "\(waited.standardError)")
            #expect(waited.standardOutput.contains(".wav"))
            let walker = FileManager.default.enumerator(
                at: scene.root.appendingPathComponent("downloads"),
                includingPropertiesForKeys: nil
            )
            let files = (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "wav" }
            #expect(files.count == 1)
        }
    }

    /// A client that sends its requests and closes its end at once (`printf '…'
    /// | feedsh mcp`) gets every answer: the server stopped when its input ended
    /// and dropped the answers it was still making (2 runs in 10 answered).
    @Test func aClientThatClosesItsInputAtOnceGetsEveryAnswer() async throws {
        try await Scene.with { scene in
            let requests = [
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
                #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                #"{"jsonrpc":"2.0","id":"list","method":"tools/list"}"#,
                #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"queue","arguments":{}}}"#,
            ]
            for _ in 0..<5 {
                let result = try await runFeedsh(
                    ["mcp"],
                    environment: scene.environment,
                    standardInput: requests.joined(separator: "\n") + "\n",
                    timeout: .seconds(30)
                )
                #expect(result.status == 0, "\(result.standardError)")
                let ids = jsonLines(result.standardOutput).compactMap { $0["id"].map { "\($0)" } }.sorted()
                #expect(ids == ["1", "3", "list"], "\(result.standardOutput)")
            }
        }
    }

    /// Eight calls in flight at once, each answered with more than a pipe holds,
    /// and a message of 10 MB: every answer arrives whole under its own id (they
    /// were written into each other, and the client lost them), and the large
    /// message is refused at once with an error under its id, holding up no
    /// other call (it was read in quadratic time: minutes).
    @Test func parallelCallsGetWholeAnswersAndAHugeMessageIsRefused() async throws {
        try await Scene.with { scene in
            let many = try await runFeedsh(
                ["-c", "subscribe \(scene.base)/feeds/generate?n=600&words=0"],
                environment: scene.environment
            )
            #expect(many.status == 0, "\(many.standardError)")
            let episodes: [String: Any] = ["tool": "episodes", "arguments": ["podcast": 2, "limit": 500]]
            let huge: [String: Any] = [
                "tool": "search", "arguments": ["words": ["$repeat": "a", "times": 10 << 20]],
            ]
            let (_, calls) = try await scene.mcp(
                Array(repeating: episodes, count: 4) + [huge] + Array(repeating: episodes, count: 4),
                parallel: true
            )
            #expect(calls.count == 9)
            for (index, call) in calls.enumerated() where index != 4 {
                #expect(call["isError"] as? Bool == false, "call \(index): \(call["error"] ?? call)")
                let listed = (call["structured"] as? [String: Any])?["episodes"] as? [Any]
                #expect(listed?.count == 500, "call \(index)")
            }
            let refusal = calls[4]["error"] as? String ?? ""
            #expect(refusal.contains("larger than the 4 MiB"), "\(calls[4])")
        }
    }
}
