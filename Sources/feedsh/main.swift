import ArgumentParser
import Foundation

// Parsing and running by hand rather than through `Feedsh.main()`, because
// ArgumentParser exits with 64 on usage errors and feedsh's contract says 2.
do {
    switch try await Feedsh.asyncParseAsRoot() {
    case let command as Feedsh:
        try await command.execute()
    case let command as ServeFixtures:
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
