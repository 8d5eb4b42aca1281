import FixtureServer
import Foundation

/// Debian's tinyproxy, started on a free loopback port with a configuration of
/// the test's own (every port may be tunnelled to; `BasicAuth` when a user is
/// given), and stopped when the test is done. Its log says what it forwarded.
final class Tinyproxy {
    let port: Int
    private let process: Process
    private let folder: URL

    /// How the test tells feedsh about it: `http://[user:password@]127.0.0.1:PORT`.
    func url(user: String? = nil, password: String? = nil) -> String {
        let userinfo = user.map { "\($0):\(password ?? "")@" } ?? ""
        return "http://\(userinfo)127.0.0.1:\(port)"
    }

    /// Starts one and waits (at most 10 s) until it accepts connections.
    init(basicAuth: (user: String, password: String)? = nil) throws {
        guard
            let binary = ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw TinyproxyError("tinyproxy is not installed ('make test-deps' installs it)")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-tinyproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A port that was free a moment ago; tinyproxy binds it at once.
        port = try ClosedPort().port
        var configuration = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 30
            Allow 127.0.0.1
            MaxClients 20
            LogLevel Connect
            LogFile "\(folder.path)/tinyproxy.log"

            """
        if let basicAuth { configuration += "BasicAuth \(basicAuth.user) \(basicAuth.password)\n" }
        try configuration.write(to: folder.appendingPathComponent("tinyproxy.conf"), atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-d", "-c", folder.appendingPathComponent("tinyproxy.conf").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Waits until it accepts connections (10 s at most), sleeping without
    /// holding a thread of Swift's pool (blocked, they stall the fixture servers
    /// of the tests beside this one).
    func ready() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !Self.accepts(port: port) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                stop()
                throw TinyproxyError("tinyproxy did not start on port \(port)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The requests it forwarded (its log's `Request` lines: `CONNECT host:port`).
    var requests: [String] {
        let log = (try? String(contentsOf: folder.appendingPathComponent("tinyproxy.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            line.range(of: "): ").flatMap { range in
                line.contains("Request (") ? String(line[range.upperBound...]) : nil
            }
        }
    }

    /// Stops it: SIGTERM, then SIGKILL after 5 s, and removes its folder, on a
    /// thread of its own (Foundation's `waitUntilExit` spins on a thread without a
    /// run loop here, so it polls; on Swift's pool that would stall the others).
    func stop() {
        let (process, folder) = (self.process, self.folder)
        process.terminate()
        Thread.detachNewThread {
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    deinit { stop() }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

struct TinyproxyError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
