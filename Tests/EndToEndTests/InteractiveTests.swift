import FixtureServer
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// feedsh in a real pseudo-terminal: the prompt, line editing and history.
@Suite("Interactive shell in a pseudo-terminal")
struct InteractiveTests {
    @Test func promptLookupEpisodesAndCtrlD() async throws {
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let session = try PTYSession(arguments: ["--demo"], home: home)
        defer { session.terminate() }

        // Each step waits for the next prompt before typing, as a person does:
        // keys typed while a command runs meet the terminal in cooked mode.
        let prompt = "feedsh:Loopback Radio> "
        try await session.waitFor("feedsh> ")
        session.type("lookup\r")
        try await session.waitFor(prompt)
        session.type("episodes\r")
        try await session.waitFor("Terminals, Escape Codes and Honest Output")
        try await session.waitFor(prompt)
        // Line editing: type a typo, erase it with backspaces, fix it.
        session.type("shwo\u{7F}\u{7F}ow 2\r")
        try await session.waitFor("episode 2 of 5")
        try await session.waitFor(prompt)
        session.type("nosuchcommand\r")
        // A terminal without NO_COLOR gets a red "error:".
        try await session.waitFor("\u{1B}[31merror:\u{1B}[0m unknown command 'nosuchcommand'")
        try await session.waitFor(prompt)
        session.type("\u{04}")  // Ctrl-D on an empty line quits
        #expect(try await session.exitStatus() == 0)

        let history = home.appendingPathComponent(".local/state/feedsh/history")
        let saved = try String(contentsOf: history, encoding: .utf8)
        #expect(saved.contains("lookup"))
        // libedit's own format: a header line, then entries vis(3)-encoded.
        #expect(saved.hasPrefix("_HiStOrY_V2_\n"))
        #expect(saved.contains("\nshow\\0402\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: history.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

extension InteractiveTests {
    /// On a terminal, headings are bold and errors red; NO_COLOR (any value, even
    /// empty) and --no-color turn both off.
    @Test(arguments: [
        ([String: String](), [String](), true), (["NO_COLOR": ""], [], false), ([:], ["--no-color"], false),
    ])
    func colourOnlyOnATerminalWithoutNoColor(environment: [String: String], flags: [String], colour: Bool) async throws
    {
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let session = try PTYSession(
            arguments: flags + ["--demo", "-c", "posts --limit 1; nosuchcommand"],
            home: home,
            environment: environment
        )
        defer { session.terminate() }
        #expect(try await session.exitStatus() == 1)
        let output = session.output
        #expect(output.contains("\u{1B}[1m#  User  Title\u{1B}[0m") == colour)
        #expect(output.contains("\u{1B}[31mfeedsh:\u{1B}[0m unknown command") == colour)
        #expect(!colour ? !output.contains("\u{1B}[") : true)
        #expect(output.contains("unknown command 'nosuchcommand'"))
    }

    @Test func sigtermPausesDownloadsAndExits143() async throws {
        let server = try await FixtureServer.start(.init(mediaRate: 500_000))
        defer { Task { await server.stop() } }
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let downloads = home.appendingPathComponent("downloads")
        let session = try PTYSession(
            arguments: [],
            home: home,
            environment: ["FEEDSH_ITUNES_URL": server.baseURL.absoluteString, "FEEDSH_DOWNLOAD_DIR": downloads.path]
        )
        defer { session.terminate() }
        try await session.waitFor("feedsh> ")
        session.type("lookup; get 1\r")
        try await session.waitFor("[1] ")
        kill(session.processIdentifier, SIGTERM)
        #expect(try await session.exitStatus() == 143)
        let part = downloads.appendingPathComponent("1386867488/1000700000001.mp3.part")
        #expect(FileManager.default.fileExists(atPath: part.path))
        let sidecar = try Data(contentsOf: URL(fileURLWithPath: part.path + ".json"))
        let object = try JSONSerialization.jsonObject(with: sidecar) as? [String: Any]
        #expect((object?["confirmedBytes"] as? Int ?? 0) > 0)
    }
}

/// A child process whose standard streams are a pseudo-terminal we hold the
/// master side of.
final class PTYSession {
    private let process = Process()
    private let master: FileHandle
    private var screen = Data()
    /// Where the last `waitFor` match ended: each wait looks only at newer output.
    private var consumed = 0

    var processIdentifier: Int32 { process.processIdentifier }

    /// Everything the child wrote so far, as text.
    var output: String {
        drain()
        return String(decoding: screen, as: UTF8.self)
    }

    init(arguments: [String], home: URL, environment: [String: String] = [:]) throws {
        var masterFD: Int32 = 0
        var slaveFD: Int32 = 0
        var size = winsize(ws_row: 30, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&masterFD, &slaveFD, nil, nil, &size) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        master = FileHandle(fileDescriptor: masterFD, closeOnDealloc: true)
        let slave = FileHandle(fileDescriptor: slaveFD, closeOnDealloc: true)
        process.executableURL = feedshBinary
        process.arguments = arguments
        process.environment = testEnvironment(environment.merging(["TERM": "xterm"]) { $1 }, home: home)
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        try process.run()
        try slave.close()
        _ = fcntl(masterFD, F_SETFL, fcntl(masterFD, F_GETFL) | O_NONBLOCK)
    }

    func type(_ text: String) {
        master.write(Data(text.utf8))
    }

    /// Reads what the terminal shows until `text` appears after the previous match
    /// (or fails after 40 s: 100 tests start at once on two cores).
    func waitFor(_ text: String, timeout: Duration = .seconds(40)) async throws {
        let deadline = ContinuousClock.now + timeout
        let needle = Data(text.utf8)
        while ContinuousClock.now < deadline {
            drain()
            if let found = screen[consumed...].firstRange(of: needle) {
                consumed = found.upperBound
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record(
            "timed out waiting for \(text.debugDescription); the screen has:\n\(String(decoding: screen, as: UTF8.self))"
        )
        throw CancellationError()
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master.fileDescriptor, &buffer, buffer.count)
            if count <= 0 { return }
            screen.append(contentsOf: buffer[0..<count])
        }
    }

    func exitStatus(timeout: Duration = .seconds(20)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            drain()
            if ContinuousClock.now > deadline {
                Issue.record("feedsh did not exit")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    func terminate() {
        if process.isRunning { process.terminate() }
    }
}
