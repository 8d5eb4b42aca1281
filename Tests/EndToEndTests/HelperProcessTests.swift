import FixtureServer
import Foundation
import Testing

/// feedsh is one program: `feedsh mcp` and the urlsession engine's helper
/// (feedsh run again for each request) are in it. libcurl, which only the
/// urlsession engine uses, is loaded when FoundationNetworking first calls it, not
/// at every start (docs/performance.md, "Installed size").
@Suite("One program")
struct HelperProcessTests {
    /// The shared libraries `binary` loads, as ldd lists them.
    static func libraries(of binary: URL) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [binary.path]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return "" }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// The build that ships links the Swift runtime in; the debug build loads it,
    /// and FoundationNetworking with it, which loads libcurl.
    static let isStatic = !libraries(of: feedshBinary).contains("libswiftCore.so")

    /// It loads no libcurl, and nothing of the Swift toolchain: it runs where none
    /// is installed.
    @Test(.enabled(if: isStatic, "the debug build loads FoundationNetworking, and libcurl under it"))
    func feedshLoadsNoLibcurlAtItsStart() {
        let libraries = Self.libraries(of: feedshBinary)
        #expect(libraries.contains("libc.so"), "ldd read the binary")
        #expect(!libraries.contains("libcurl"), "\(libraries)")
        #expect(!libraries.contains("libFoundation") && !libraries.contains("libdispatch"), "\(libraries)")
    }

    /// A machine without libcurl runs feedsh, and the urlsession engine says what
    /// it lacks; the download is not retried as if the network might recover, and
    /// leaves no file.
    @Test(.enabled(if: isStatic, "the debug build cannot start without libcurl"))
    func withoutLibcurlTheURLSessionEngineSaysSo() async throws {
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // A libcurl.so.4 the loader finds first and cannot load.
        let libraries = root.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: libraries.appendingPathComponent("libcurl.so.4"))
        let downloads = root.appendingPathComponent("d")
        let result = try await runFeedsh(
            ["--engine", "urlsession", "-c", "lookup 1000000001 --limit 1; get 1; wait"],
            environment: [
                "LD_LIBRARY_PATH": libraries.path, "FEEDSH_DOWNLOAD_DIR": downloads.path,
                "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
                "FEEDSH_ITUNES_URL": server.baseURL.absoluteString,
            ]
        )
        #expect(result.standardOutput.contains("#060 A Short History of Bridges"), "the shell ran")
        #expect(
            result.standardError.contains(
                "the download engine cannot run: urlsession needs libcurl: cannot load libcurl.so.4 ("
            ),
            "\(result.standardError)"
        )
        #expect(!result.signalled)
        #expect(server.requests.filter { $0.path.hasPrefix("/media/") }.isEmpty)
        let files = FileManager.default.enumerator(atPath: downloads.path)?.compactMap { $0 as? String } ?? []
        #expect(files.filter { $0.hasSuffix(".mp3") }.isEmpty, "\(files)")

        // `mcp` does not need libcurl at all.
        let mcp = try await runFeedsh(
            ["mcp"],
            environment: [
                "LD_LIBRARY_PATH": libraries.path, "FEEDSH_LIBRARY": root.appendingPathComponent("library.sqlite").path,
            ],
            standardInput: Self.initialize
        )
        #expect(mcp.standardOutput.contains("\"serverInfo\""), "\(mcp.standardOutput) \(mcp.standardError)")
        #expect(mcp.status == 0)
    }

    /// An MCP client's first message, and the end of its input.
    static let initialize = """
        {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26",\
        "capabilities":{},"clientInfo":{"name":"test","version":"1"}}}

        """

    /// `make install` writes one program: a feedsh alone in a folder runs the
    /// urlsession engine and `mcp`, which once were programs beside it.
    @Test func aFeedshAloneInAFolderHasEveryPart() async throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A hard link, or a copy across file systems: /proc/self/exe then names this
        // folder (a symbolic link would lead back to the build's).
        let alone = folder.appendingPathComponent("feedsh")
        do {
            try FileManager.default.linkItem(at: feedshBinary, to: alone)
        } catch {
            try FileManager.default.copyItem(at: feedshBinary, to: alone)
        }
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let environment = [
            "FEEDSH_LIBRARY": folder.appendingPathComponent("library.sqlite").path,
            "FEEDSH_DOWNLOAD_DIR": folder.appendingPathComponent("d").path,
            "FEEDSH_ITUNES_URL": server.baseURL.absoluteString,
        ]
        let download = try await runFeedsh(
            ["--engine", "urlsession", "-c", "lookup 1000000001 --limit 1; get 1; wait"],
            environment: environment,
            executable: alone
        )
        #expect(download.status == 0, "\(download.standardError)")
        let file = folder.appendingPathComponent("d/1000000001/1000800000000.mp3")
        #expect(FileManager.default.fileExists(atPath: file.path))

        let mcp = try await runFeedsh(
            ["mcp"],
            environment: environment,
            standardInput: Self.initialize,
            executable: alone
        )
        #expect(mcp.standardOutput.contains("\"serverInfo\""), "\(mcp.standardOutput) \(mcp.standardError)")
        #expect(mcp.status == 0)
    }
}
