import Foundation
import Testing

/// feedsh's helpers keep FoundationNetworking (and libcurl, with the thirty-odd
/// libraries it loads) out of feedsh itself (docs/performance.md, "Start").
@Suite("Helper programs")
struct HelperProcessTests {
    /// The shared libraries `binary` loads, as ldd lists them.
    func libraries(of binary: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [binary.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    @Test func feedshLoadsNoLibcurlAndItsHelpersDo() throws {
        let folder = feedshBinary.deletingLastPathComponent()
        let feedsh = try libraries(of: feedshBinary)
        #expect(feedsh.contains("libc.so"), "ldd read the binary")
        #expect(!feedsh.contains("libcurl"), "\(feedsh)")
        for helper in ["feedsh-urlsession", "feedsh-mcp"] {
            let url = folder.appendingPathComponent(helper)
            #expect(FileManager.default.isExecutableFile(atPath: url.path), "\(helper) is built beside feedsh")
            #expect(try libraries(of: url).contains("libcurl"), "\(helper)")
        }
    }

    /// A feedsh installed without its helpers says which one it missed, and where.
    @Test func aMissingHelperIsNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A hard link, or a copy across file systems: /proc/self/exe then names this
        // folder (a symbolic link would lead back to the build's).
        let alone = folder.appendingPathComponent("feedsh")
        do {
            try FileManager.default.linkItem(at: feedshBinary, to: alone)
        } catch {
            try FileManager.default.copyItem(at: feedshBinary, to: alone)
        }
        let process = Process()
        process.executableURL = alone
        process.arguments = ["mcp"]
        process.environment = testEnvironment(home: folder)
        process.standardInput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let helper = folder.appendingPathComponent("feedsh-mcp").path
        #expect(
            text == "feedsh mcp: its server, \(helper), is not installed beside feedsh (make install puts it there)\n"
        )
    }
}
