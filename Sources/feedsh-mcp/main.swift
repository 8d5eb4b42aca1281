import Assistant
import CFileIO
import FeedServices
import Foundation
import HTTPSupport

// feedsh-mcp: the Model Context Protocol server that `feedsh mcp` runs (exec) with
// the library and download folder in FEEDSH_LIBRARY and FEEDSH_DOWNLOAD_DIR. It is
// a program of its own because the MCP SDK brings FoundationNetworking, and with
// it libcurl and the thirty-odd libraries libcurl loads, which no other command
// of feedsh needs to load.

// As feedsh's own start does (Sources/feedsh/main.swift).
_ = feedsh_limit_malloc_arenas(2)

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("feedsh mcp: \(message)\n".utf8))
    exit(status)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.allSatisfy({ $0 == "--allow-changes" }) else {
    fail("feedsh-mcp takes only --allow-changes; run it as feedsh mcp (feedsh mcp --help)", status: 2)
}
let configuration: Configuration
do throws(ProxyError) {
    configuration = try .frontEnd()
} catch {
    fail("\(error.description).", status: 2)
}
// The composition root of this process.
let services = Services(configuration: configuration)
do {
    try await MCPFrontEnd.run(services: services, allowChanges: arguments.contains("--allow-changes"))
    await services.close()
} catch {
    await services.close()
    fail("\(error)", status: 1)
}
