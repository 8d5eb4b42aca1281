import FixtureServer
import Foundation
import Synchronization

/// The built `feedsh` binary: `$FEEDSH_BINARY`, or `feedsh` beside the test bundle.
let feedshBinary: URL = {
    if let path = ProcessInfo.processInfo.environment["FEEDSH_BINARY"] {
        return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("feedsh")
}()

/// What a finished `feedsh` run printed and how it exited.
struct FeedshResult {
    let status: Int32
    let standardOutput: String
    let standardError: String
    /// True when the process ended by a signal rather than exit().
    let signalled: Bool
}

/// A clean environment for a child: no XDG state of the user's, UTC, no colours.
func testEnvironment(_ extra: [String: String] = [:], home: URL) -> [String: String] {
    var environment = [
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        "HOME": home.path,
        "TZ": "UTC",
        "LANG": "C.UTF-8",
    ]
    environment.merge(extra) { $1 }
    return environment
}

/// Starts feedsh in the background with its output discarded (standard error to
/// `errors` when given); the caller waits for it or signals it.
func launchFeedsh(
    _ arguments: [String],
    environment: [String: String],
    home: URL,
    errors: Pipe? = nil
) throws -> Process {
    let process = Process()
    process.executableURL = feedshBinary
    process.arguments = arguments
    process.environment = testEnvironment(environment, home: home)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors ?? FileHandle.nullDevice
    try process.run()
    return process
}

/// Runs feedsh with pipes for its streams and waits for it (killing it after
/// `timeout`, so a hang fails the test instead of the suite).
func runFeedsh(
    _ arguments: [String],
    environment: [String: String] = [:],
    standardInput: String? = nil,
    timeout: Duration = .seconds(60),
    executable: URL = feedshBinary
) async throws -> FeedshResult {
    let home = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = testEnvironment(environment, home: home)
    let stdout = Pipe()
    let stderr = Pipe()
    let stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    try process.run()
    if let standardInput {
        stdin.fileHandleForWriting.write(Data(standardInput.utf8))
    }
    try stdin.fileHandleForWriting.close()
    async let out = readAll(stdout.fileHandleForReading)
    async let err = readAll(stderr.fileHandleForReading)
    let finished = await waitForExit(process, timeout: timeout)
    if !finished { process.terminate() }
    let (output, errors) = await (out, err)
    return FeedshResult(
        status: process.terminationStatus,
        standardOutput: output,
        standardError: errors,
        signalled: process.terminationReason == .uncaughtSignal
    )
}

/// Everything `handle` gives until its end, read on a thread of its own: on
/// Dispatch's global queue the blocked reads (two for each feedsh running) take
/// the workers that Swift's executor runs on here, and the fixture servers of
/// every test stall until Dispatch adds more (about 30 s on two cores).
func readAll(_ handle: FileHandle) async -> String {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let data = handle.readDataToEndOfFile()
            continuation.resume(returning: String(decoding: data, as: UTF8.self))
        }
    }
}

/// Polls until the process exits; false when `timeout` passed first.
func waitForExit(_ process: Process, timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}

/// Polls a download's sidecar until it confirms some bytes (a feedsh does so every
/// second), at most `timeout`; returns how many (0 when it never did).
func waitForConfirmedBytes(_ sidecar: URL, timeout: Duration = .seconds(30)) async throws -> Int {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let data = try? Data(contentsOf: sidecar),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let confirmed = object["confirmedBytes"] as? Int, confirmed > 0
        {
            return confirmed
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    return 0
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A fixture server and a new folder for the length of `body`; the server stops and
/// the folder goes afterwards, whether `body` throws or not.
func withServerAndFolder(
    _ configuration: FixtureServer.Configuration = .init(),
    _ body: (FixtureServer, URL) async throws -> Void
) async throws {
    let server = try await FixtureServer.start(configuration)
    let root = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    do {
        try await body(server, root)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Writes what the WAL of the SQLite file at `path` holds into the file and
/// empties it (SQLite's own checkpoint, through Python's sqlite3), so that a test
/// may read or change the file's bytes as the library's.
func checkpointWAL(_ path: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "python3", "-c",
        "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA wal_checkpoint(TRUNCATE)').fetchall()",
        path,
    ]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ServeTestError("python3 could not checkpoint \(path)") }
}
