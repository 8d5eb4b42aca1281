import FixtureServer
import Foundation
import Subprocess

/// opodsync (`../shared/sync-server/`), a real gpodder.net v2 and Nextcloud gPodder
/// Sync server in PHP, started on a free loopback port with a data folder and one
/// account of the test's own, and stopped when the test is done.
public final class Opodsync: Sendable {
    public let port: Int
    public let user: String
    public let password: String
    public let folder: URL
    private let pid: Int32

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The sync server's folder beside the project (`../shared/sync-server`).
    public static var serverFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/sync-server")
    }

    private init(port: Int, user: String, password: String, folder: URL, pid: Int32) {
        self.port = port
        self.user = user
        self.password = password
        self.folder = folder
        self.pid = pid
    }

    /// Starts one (its `start.sh`, which waits until it answers) with account
    /// `user`/`password`.
    ///
    /// On a loaded machine php can take longer than the 5 s `start.sh` waits for
    /// it to answer (it then cannot add the account: "no such table: users"), so
    /// a start is tried up to three times, each on a port and folder of its own.
    public static func start(user: String = "alice", password: String = "secret") async throws -> Opodsync {
        var failure: (any Error)?
        for _ in 1...3 {
            do {
                return try await startOnce(user: user, password: password)
            } catch {
                failure = error
            }
        }
        throw failure ?? OpodsyncError("opodsync did not start")
    }

    private static func startOnce(user: String, password: String) async throws -> Opodsync {
        let script = serverFolder.appendingPathComponent("start.sh")
        guard FileManager.default.isExecutableFile(atPath: script.path) else {
            throw OpodsyncError("no sync server at \(script.path)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "feedsh-opodsync-\(UUID().uuidString)"
        )
        // A port that was free a moment ago; php binds it at once.
        let port = try ClosedPort().port
        // swift-subprocess gives the script only its three descriptors, so the
        // server it leaves running holds no end of the output's pipe.
        let result = try await Subprocess.run(
            .path("/bin/bash"),
            arguments: [script.path, String(port), folder.path, user, password],
            output: .string(limit: 4096),
            error: .string(limit: 4096)
        )
        let printed = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.terminationStatus.isSuccess, let pid = Int32(printed) else {
            // A server that started but could not be set up is stopped (by its
            // listening address, as the script did not get to print its pid).
            _ = try? await Subprocess.run(
                .name("pkill"),
                arguments: ["-f", "php -S 127.0.0.1:\(port) "],
                output: .discarded,
                error: .discarded
            )
            try? FileManager.default.removeItem(at: folder)
            throw OpodsyncError(
                "opodsync did not start ('make test-deps' installs php-cli and php-sqlite3): "
                    + result.standardError
            )
        }
        return Opodsync(port: port, user: user, password: password, folder: folder, pid: pid)
    }

    /// Stops it and removes its data.
    public func stop() {
        kill(pid, SIGTERM)
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}

public struct OpodsyncError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
