import Background
import Foundation
import SocketTestSupport
import Testing

/// A private directory for a test's socket (short: a socket path fits 108 bytes).
private func socketDirectory() throws -> String {
    var template = Array("/tmp/feedsh-control-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
    return String(cString: made)
}

/// Binds a socket at `path` and closes it without removing the file, as a process
/// killed with SIGKILL leaves it.
private func leaveStaleSocket(at path: String) {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    _ = withSocketAddress(unixSocketAddress(path)) { bind(fd, $0, $1) }
    close(fd)
}

@Suite("Control protocol")
struct ControlProtocolTests {
    @Test func requestsRoundTripAndBadLinesSayWhy() throws {
        let request = ControlRequest(id: 3, op: .pause, ids: ["12"])
        #expect(try ControlRequest.parse(Array(request.line.utf8)).get() == request)
        func problem(_ line: String) -> ControlParseError? {
            if case .failure(let error) = ControlRequest.parse(Array(line.utf8)) { return error }
            return nil
        }
        #expect(problem("garbage")?.message == "not a JSON object")
        #expect(problem(#"{"id":4,"op":"list"}"#) == ControlParseError(id: 4, message: "no protocol version (\"v\")"))
        #expect(problem(#"{"v":2,"id":5,"op":"list"}"#)?.message.contains("version 2") == true)
        #expect(problem(#"{"v":1,"id":6,"op":"format-disk"}"#)?.message.hasPrefix("unknown operation") == true)
        #expect(problem(#"{"v":1,"id":7,"op":"get","downloads":[{"id":1}]}"#)?.id == 7)
    }
}

@Suite("Control socket", .serialized)
struct ControlSocketTests {
    /// A server whose `list` answers one download.
    static func server(at path: String) async throws -> ControlServer {
        try await ControlServer.start(path: path) { request in
            switch request.op {
            case .list:
                .success(
                    .init(downloads: [ControlDownload(id: "1", number: "1", title: "One", path: "/x", state: .running)])
                )
            case .pause:
                .failure(.init(code: "unknown-download", message: "no download \(request.ids ?? [])"))
            default: .success(.init())
            }
        }
    }

    @Test func garbageGetsAnErrorAndTheServerKeepsServing() async throws {
        let directory = try socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control.sock"
        let server = try await Self.server(at: path)
        let garbage = try await unixSocketExchange(path, "\u{1}\u{2}not json at all\n")
        #expect(garbage.contains(#""code":"bad-request""#))
        #expect(garbage.contains(#""ok":false"#))
        let oversized = try await unixSocketExchange(
            path,
            String(repeating: "x", count: ControlProtocol.maximumLine + 10)
        )
        // A line over the limit closes that connection, without an answer.
        #expect(oversized.isEmpty)
        // Still serving, to a proper client too.
        let client = try await ControlClient.connect(path: path)
        let list = try await client.request(.list)
        #expect(list.downloads?.first?.title == "One")
        await #expect(throws: ControlError.refused(code: "unknown-download", message: "no download [\"9\"]")) {
            _ = try await client.request(.pause, ids: ["9"])
        }
        await client.close()
        await server.stop()
    }

    @Test func twoSubscribersBothSeeEveryEvent() async throws {
        let directory = try socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/control.sock"
        let server = try await Self.server(at: path)
        let first = try await ControlClient.connect(path: path)
        let second = try await ControlClient.connect(path: path)
        _ = try await first.request(.subscribe)
        _ = try await second.request(.subscribe)
        let event = ControlDownload(
            id: "2",
            number: "2",
            title: "Two",
            path: "/y",
            state: .running,
            bytes: 10,
            total: 100
        )
        server.publish(event)
        for client in [first, second] {
            #expect(await firstEvent(of: client, within: .seconds(30)) == event)
        }
        await first.close()
        await second.close()
        await server.stop()
    }

    @Test func aStaleSocketIsReplacedAndTheLockKeepsOneServer() async throws {
        let directory = try socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let paths = ControlPaths(environment: ["XDG_RUNTIME_DIR": directory])
        try paths.prepare()
        // A socket file left by a killed process: nothing listens, nobody holds the lock.
        leaveStaleSocket(at: paths.socket)
        #expect(FileManager.default.fileExists(atPath: paths.socket))
        await #expect(throws: ControlError.notRunning) { _ = try await ControlClient.connect(path: paths.socket) }
        #expect(!ControlLock.isHeld(paths.lock))
        let lock = try #require(ControlLock(path: paths.lock))
        #expect(ControlLock.isHeld(paths.lock))
        #expect(ControlLock(path: paths.lock) == nil)
        let server = try await Self.server(at: paths.socket)
        let client = try await ControlClient.connect(path: paths.socket)
        #expect(try await client.request(.list).downloads?.count == 1)
        await client.close()
        await server.stop()
        _ = lock
    }

    @Test func theDirectoryIsThisUsersAndClosedToOthers() throws {
        let directory = try socketDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let paths = ControlPaths(environment: ["XDG_RUNTIME_DIR": directory])
        try paths.prepare()
        var info = stat()
        #expect(stat(paths.directory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        // Opened to others by someone: prepare closes it again.
        chmod(paths.directory, 0o755)
        try paths.prepare()
        #expect(stat(paths.directory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        // Without XDG_RUNTIME_DIR, the state directory.
        #expect(ControlPaths(environment: ["HOME": "/home/u"]).socket == "/home/u/.local/state/feedsh/control.sock")
        #expect(ControlPaths(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).directory == "/s/feedsh")
    }
}

/// The first event `client` receives, or nil after `limit`: a lost event fails the
/// test instead of hanging it.
func firstEvent(of client: ControlClient, within limit: Duration) async -> ControlDownload? {
    await within(limit) {
        var iterator = client.events.makeAsyncIterator()
        return await iterator.next()
    } ?? nil
}
