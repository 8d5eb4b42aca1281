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
}
