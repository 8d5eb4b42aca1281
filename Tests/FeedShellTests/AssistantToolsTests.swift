import FeedKit
import FeedServices
import Foundation
import MCP
import Testing

@testable import Assistant
@testable import FeedShell

/// Each MCP tool against services over an in-memory web: no socket, no process.
@Suite("MCP tools over in-memory services")
struct AssistantToolsTests {
    /// Services with one subscription of two episodes, the first with show notes.
    static func withLibrary(allowChanges: Bool = false, _ body: (AssistantTools, InMemoryWeb) async throws -> Void)
        async throws
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = InMemoryWeb()
        web.serve(
            "/show.xml",
            Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0"><channel><title>Memory Lane</title>
                <item><guid>b</guid><title>Second \u{1B}[31mred</title><pubDate>Tue, 03 Nov 2026 09:00:00 GMT</pubDate>
                <description>Notes about lighthouses.</description>
                <enclosure url="http://media.invalid/b.mp3" length="1000" type="audio/mpeg"/></item>
                <item><guid>a</guid><title>First steps</title><pubDate>Mon, 02 Nov 2026 09:00:00 GMT</pubDate>
                <enclosure url="http://media.invalid/a.mp3" length="1000" type="audio/mpeg"/></item>
                </channel></rss>
                """.utf8
            )
        )
        let configuration = Configuration(
            endpoints: Endpoints(allAt: InMemoryShell.base),
            downloadDirectory: folder
        )
        let services = Services(configuration: configuration, network: Network(http: web, feeds: web))
        let tools = AssistantTools(services: services, allowChanges: allowChanges)
        if allowChanges {
            let made = await tools.call("subscribe", ["url": .string("http://feeds.invalid/show.xml")])
            #expect(made.isError == false, "\(made.content)")
        } else {
            let changing = AssistantTools(services: services, allowChanges: true)
            _ = await changing.call("subscribe", ["url": .string("http://feeds.invalid/show.xml")])
        }
        try await body(tools, web)
        await services.close()
    }

    @Test func theReadOnlyToolsAreListedAndAnswer() async throws {
        try await Self.withLibrary { tools, _ in
            #expect(tools.list.map(\.name) == AssistantTools.readOnly)
            let subscriptions = await tools.call("subscriptions", [:])
            #expect(subscriptions.structuredContent?.objectValue?["subscriptions"]?.arrayValue?.count == 1)
            let episodes = await tools.call("episodes", ["podcast": .int(1), "words": .string("first")])
            let listed = episodes.structuredContent?.objectValue?["episodes"]?.arrayValue ?? []
            #expect(listed.map { $0.objectValue?["ref"]?.stringValue } == ["1:2"])
            let episode = await tools.call("episode", ["ref": .string("1:1")])
            let fields = episode.structuredContent?.objectValue ?? [:]
            // Sanitized: no escape reaches the assistant.
            #expect(fields["title"]?.stringValue == "Second [31mred")
            #expect(fields["description"]?.stringValue == "Notes about lighthouses.")
            let found = await tools.call("search", ["words": .string("lighthouses")])
            #expect(
                found.structuredContent?.objectValue?["hits"]?.arrayValue?.first?.objectValue?["ref"]?.stringValue
                    == "1:1"
            )
            #expect(await tools.call("new", [:]).isError == false)
            #expect(
                await tools.call("queue", [:]).structuredContent?.objectValue?["queue"]?.arrayValue?.isEmpty == true
            )
            #expect(await tools.call("stats", [:]).structuredContent?.objectValue?["plays"]?.intValue == 0)
        }
    }

    @Test func badArgumentsAreToolErrorsThatNameThem() async throws {
        try await Self.withLibrary { tools, _ in
            let cases: [(String, [String: Value], String)] = [
                ("episodes", [:], "argument 'podcast': is required"),
                ("episodes", ["podcast": .int(7)], "argument 'podcast': there is no subscription 7"),
                (
                    "episodes", ["podcast": .int(1), "limit": .int(0)],
                    "argument 'limit': must be a whole number from 1"
                ),
                ("episode", ["ref": .string("1:3")], "argument 'ref': subscription 1 has episodes 1-2, not 3"),
                ("episode", ["ref": .int(3)], "argument 'ref': must be a string"),
                ("transcript", ["ref": .string("1:1"), "from": .int(9), "to": .int(3)], "argument 'to'"),
                ("transcript", ["ref": .string("1:1")], "1:1 has no transcript"),
                ("search", ["words": .string("a*b")], "argument 'words': 'a*b'"),
                ("stats", ["since": .string("yesterday")], "argument 'since': must be a date"),
                ("queue_add", ["ref": .string("1:1")], "without --allow-changes"),
                ("nonsense", [:], "no tool 'nonsense'"),
            ]
            for (tool, arguments, words) in cases {
                let result = await tools.call(tool, arguments)
                #expect(result.isError == true, "\(tool)")
                let text = result.content.compactMap { if case .text(let text, _, _) = $0 { text } else { nil } }
                    .joined()
                #expect(text.contains(words), "\(tool): \(text)")
            }
        }
    }

    @Test func withChangesAllowedTheLibraryChanges() async throws {
        try await Self.withLibrary(allowChanges: true) { tools, _ in
            #expect(tools.list.count == 14)
            #expect(await tools.call("queue_add", ["ref": .string("1:2")]).isError == false)
            let queue = await tools.call("queue", [:]).structuredContent?.objectValue?["queue"]?.arrayValue
            #expect(queue?.first?.objectValue?["ref"]?.stringValue == "1:2")
            #expect(await tools.call("mark", ["ref": .string("1:1"), "as": .string("played")]).isError == false)
            let episode = await tools.call("episode", ["ref": .string("1:1")]).structuredContent?.objectValue
            #expect(episode?["played"]?.boolValue == true)
            let again = await tools.call("subscribe", ["url": .string("http://feeds.invalid/show.xml")])
            #expect(again.structuredContent?.objectValue?["created"]?.boolValue == false)
        }
    }

    /// An address no user types for a podcast is not fetched, as sync refuses it.
    @Test func subscribeRefusesLinkLocalAddresses() async throws {
        try await Self.withLibrary(allowChanges: true) { tools, web in
            for url in ["http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/feed", "http://2852039166/f"] {
                let refused = await tools.call("subscribe", ["url": .string(url)])
                #expect(refused.isError == true, "\(url)")
                #expect("\(refused.content)".contains("link-local"), "\(refused.content)")
            }
            #expect(!web.asked.contains { $0.host?.contains("169.254") == true || $0.host?.contains("fe80") == true })
        }
    }

    /// A private feed's `user:password@` is kept apart from its URL, as the
    /// shell's `subscribe` keeps it, not dropped.
    @Test func subscribeKeepsAPrivateFeedsPassword() async throws {
        try await Self.withLibrary(allowChanges: true) { tools, web in
            web.serve("/members.xml", try #require(web.page(at: "/show.xml")))
            let made = await tools.call("subscribe", ["url": .string("http://alice:s3cret@feeds.invalid/members.xml")])
            #expect(made.isError == false, "\(made.content)")
            let library = try tools.services.library.make()
            let stored = try #require(
                try await library.podcast(feedURL: URL(string: "http://feeds.invalid/members.xml")!)
            )
            #expect(
                try await library.credentials(of: stored.id ?? -1) == FeedCredentials(user: "alice", password: "s3cret")
            )
            #expect(!"\(made.content)".contains("s3cret"))
        }
    }

    /// A long transcript comes a page at a time, with where the next page starts.
    @Test func aTranscriptComesAPageAtATime() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = InMemoryWeb()
        web.serve(
            "/talk.xml",
            Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Talk</title>
                <item><guid>t</guid><title>Long talk</title><pubDate>Mon, 02 Nov 2026 09:00:00 GMT</pubDate>
                <enclosure url="http://media.invalid/t.mp3" length="1000" type="audio/mpeg"/>
                <podcast:transcript url="http://feeds.invalid/t.vtt" type="text/vtt"/></item>
                </channel></rss>
                """.utf8
            )
        )
        // Five cues a minute apart: five paragraphs.
        let cues = (0..<5).map { index in
            "\n00:0\(index):00.000 --> 00:0\(index):05.000\n<v Host>Part \(index + 1).\n"
        }.joined()
        web.serve("/t.vtt", Data(("WEBVTT\n" + cues).utf8))
        let configuration = Configuration(endpoints: Endpoints(allAt: InMemoryShell.base), downloadDirectory: folder)
        let services = Services(configuration: configuration, network: Network(http: web, feeds: web))
        let tools = AssistantTools(services: services, allowChanges: true)
        #expect(await tools.call("subscribe", ["url": .string("http://feeds.invalid/talk.xml")]).isError == false)
        let first = await tools.call("transcript", ["ref": .string("1:1"), "limit": .int(2)])
        let page = first.structuredContent?.objectValue
        #expect(page?["paragraphs"]?.arrayValue?.count == 2, "\(first.content)")
        #expect(page?["total"]?.intValue == 5)
        #expect(page?["next"]?.intValue == 2)
        let last = await tools.call("transcript", ["ref": .string("1:1"), "limit": .int(2), "after": .int(4)])
        let end = last.structuredContent?.objectValue
        #expect(end?["paragraphs"]?.arrayValue?.first?.objectValue?["text"]?.stringValue == "Part 5.")
        #expect(end?["next"]?.isNull == true)
        #expect("\(last.content)".contains("1 paragraph of 5"))
        await services.close()
    }
}

/// The server as an MCP client sees it, over the SDK's in-memory transport: no
/// process, no pipe.
@Suite("MCP server in memory")
struct AssistantServerTests {
    @Test func aClientListsTheToolsWithTheirSchemasAndCallsThem() async throws {
        try await AssistantToolsTests.withLibrary { tools, _ in
            let (clientSide, serverSide) = await InMemoryTransport.createConnectedPair()
            let server = await MCPFrontEnd.server(services: tools.services, allowChanges: false)
            try await server.start(transport: serverSide)
            let client = Client(name: "test", version: "1")
            let hello = try await client.connect(transport: clientSide)
            #expect(hello.serverInfo.name == "feedsh")
            let listed = try await client.listTools().tools
            #expect(listed.map(\.name) == AssistantTools.readOnly)
            #expect(listed.allSatisfy { $0.outputSchema != nil })
            let answer = try await client.send(CallTool.request(.init(name: "subscriptions", arguments: [:]))).value
            let schema = try #require(listed.first { $0.name == "subscriptions" }?.outputSchema)
            let content = try #require(answer.structuredContent)
            #expect(OutputSchemaTests.problems(content, schema) == [])
            #expect(content.objectValue?["subscriptions"]?.arrayValue?.first?.objectValue?["title"] == "Memory Lane")
            let refused = try await client.send(
                CallTool.request(.init(name: "mark", arguments: ["ref": "1:1", "as": "played"]))
            ).value
            #expect(refused.isError == true)
            await client.disconnect()
            await server.stop()
        }
    }
}
