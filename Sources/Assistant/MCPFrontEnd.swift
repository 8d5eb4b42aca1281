import FeedKit
import FeedServices
import Foundation
import MCP

/// `feedsh mcp`: the library for assistants, as an MCP server on standard input
/// and output (``LineTransport``: one message a line, each written whole). Read-only tools by default; with
/// `allowChanges` also those that change the library.
public enum MCPFrontEnd {
    /// Serves until the client closes standard input. Downloads a `download` call
    /// started go on in the background feedsh.
    /// `services` are the caller's (the helper's composition root).
    public static func run(services: Services, allowChanges: Bool) async throws {
        let server = await server(services: services, allowChanges: allowChanges)
        try await server.start(transport: LineTransport())
        await server.waitUntilCompleted()
        // What a `download` started finishes without this process.
        _ = try? await services.downloads.detach()
    }

    /// The server with its tools over `services`, for any transport: standard
    /// input and output in `run`, the SDK's `InMemoryTransport` in tests.
    static func server(services: Services, allowChanges: Bool) async -> Server {
        let tools = AssistantTools(services: services, allowChanges: allowChanges)
        let server = Server(
            name: "feedsh",
            version: FeedKitVersion.current,
            instructions: "A podcast library: subscriptions, episodes as P:E, show notes, transcripts, the queue "
                + "and listening statistics.",
            capabilities: .init(tools: .init(listChanged: false))
        )
        await server.withMethodHandler(ListTools.self) { _ in ListTools.Result(tools: tools.list) }
        await server.withMethodHandler(CallTool.self) { params in
            await tools.call(params.name, params.arguments ?? [:])
        }
        return server
    }
}
