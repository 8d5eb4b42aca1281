import Foundation
import Testing

/// Script input through the binary: files, FIFOs, standard input, bad bytes,
/// over-long lines, self-sourcing, signals.
@Suite("feedsh script input")
final class ScriptInputEndToEndTests {
    /// This test's own folder (a new instance a test), removed after it.
    let directory: URL

    init() throws {
        directory = try temporaryDirectory()
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func script(_ bytes: [UInt8]) throws -> URL {
        let url = directory.appendingPathComponent("s.feedsh")
        try Data(bytes).write(to: url)
        return url
    }

    @Test func aNulByteIsAnErrorWithFileAndLine() async throws {
        let file = try script(Array("help quit\nlo\u{0}okup\n".utf8))
        let result = try await runFeedsh(["-f", file.path])
        #expect(result.status == 1)
        #expect(result.standardError == "\(file.path):2: a NUL byte: scripts are text\n")
        #expect(result.standardOutput.contains("quit"))
    }

    @Test func anOverlongLineIsRefused() async throws {
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000_000)
        bytes += Array("\nhelp quit\n".utf8)
        let file = try script(bytes)
        let result = try await runFeedsh(["--keep-going", "-f", file.path])
        #expect(result.status == 1)
        #expect(result.standardError == "\(file.path):1: line longer than 64 KiB\n")
        // The line after it still ran.
        #expect(result.standardOutput.contains("quit"))
    }

    @Test func standardInputAsAFileWorks() async throws {
        let result = try await runFeedsh(["-f", "/dev/stdin"], standardInput: "help quit\n")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("quit"))
    }

    @Test func aFIFOWorks() async throws {
        let fifo = directory.appendingPathComponent("commands")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let writer = Thread {
            // Opening blocks until feedsh opens the other end.
            if let handle = FileHandle(forWritingAtPath: fifo.path) {
                handle.write(Data("help quit\n".utf8))
                try? handle.close()
            }
        }
        writer.start()
        let result = try await runFeedsh(["-f", fifo.path])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("quit"))
    }

    @Test(arguments: [["--download-dir", ""], ["--cache-dir", ""]])
    func anEmptyDirectoryIsAUsageError(flag: [String]) async throws {
        let result = try await runFeedsh(flag + ["-c", "help"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("must name a directory"))
    }

    @Test func aFileThatSourcesItselfIsRefusedBeforeItRunsTwice() async throws {
        let file = directory.appendingPathComponent("loop.feedsh")
        try Data("help quit\nsource \(file.path)\n".utf8).write(to: file)
        let result = try await runFeedsh(["-f", file.path])
        #expect(result.status == 1)
        #expect(result.standardError.contains("already being sourced"))
        let runs = result.standardOutput.components(separatedBy: "quit").count - 1
        let once = try await runFeedsh(["-c", "help quit"]).standardOutput.components(separatedBy: "quit").count - 1
        #expect(runs == once)
    }

    /// SIGTERM used to come out as 130 about one time in ten (the cancelled script's
    /// own status won the race).
    @Test func sigtermAlwaysExits143() async throws {
        for _ in 0..<20 {
            let process = Process()
            process.executableURL = feedshBinary
            process.arguments = []
            process.environment = testEnvironment(home: directory)
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Once feedsh has answered a command its handlers are in place (a signal
            // before that is the default action, status 15).
            input.fileHandleForWriting.write(Data("help quit\n".utf8))
            _ = await readSome(output.fileHandleForReading)
            kill(process.processIdentifier, SIGTERM)
            let exited = await waitForExit(process, timeout: .seconds(10))
            try? input.fileHandleForWriting.close()
            guard exited else {
                // terminationStatus of a running process traps: end it and say so.
                process.terminate()
                Issue.record("feedsh did not exit within 10 s of SIGTERM")
                return
            }
            #expect(process.terminationStatus == 143)
        }
    }
}

/// Waits for the first bytes on `handle` (or its end), on a thread of its own
/// (see ``readAll(_:)``).
func readSome(_ handle: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: handle.availableData)
        }
    }
}
