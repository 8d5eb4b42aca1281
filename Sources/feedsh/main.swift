import ArgumentParser
import CFileIO
import Downloads
import Foundation
import URLSessionEngine

// Two malloc arenas, not one per thread: with NIO's event loops, the cooperative
// pool, GRDB's queues and the parser's thread, glibc's default (eight per core)
// kept freed memory in many arenas. Measured on `subscribe` of a 5,000-item feed
// (make bench): about 5 MiB less peak RSS, no change in time.
_ = feedsh_limit_malloc_arenas(2)

// feedsh run by itself for one request of `--engine urlsession` (HelperTransport).
if CommandLine.arguments.dropFirst().first == HelperWire.urlSessionArgument {
    await URLSessionHelper.run()
}

// Parsing and running by hand rather than through `Feedsh.main()`, because
// ArgumentParser exits with 64 on usage errors and feedsh's contract says 2.
do {
    switch try await Feedsh.asyncParseAsRoot() {
    case let command as Feedsh:
        try await command.execute()
    case let command as ServeFixtures:
        try await command.execute()
    case let command as MCPServer:
        try await command.execute()
    case let command as Serve:
        try await command.execute()
    case var command:
        try command.run()
    }
} catch {
    let code = Feedsh.exitCode(for: error)
    let message = Feedsh.fullMessage(for: error)
    if !message.isEmpty {
        let stream = code == .success ? FileHandle.standardOutput : FileHandle.standardError
        stream.write(Data((message + "\n").utf8))
    }
    exit(code == .validationFailure ? 2 : code.rawValue)
}
