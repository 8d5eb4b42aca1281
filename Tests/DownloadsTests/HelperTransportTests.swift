import Downloads
import FixtureServer
import Foundation
import HTTPSupport
import NIOCore
import Processes
import Testing

@Suite("Transport helper frames")
struct HelperWireTests {
    /// A frame as the reader sees it: its payload, without the length before it.
    func payload(_ frame: HelperWire.Frame) -> ByteBuffer {
        var encoded = frame.encoded()
        let length = encoded.readInteger(as: UInt32.self)
        #expect(length.map(Int.init) == encoded.readableBytes)
        return encoded
    }

    @Test func everyFrameReadsBackAsItWasWritten() throws {
        let frames: [HelperWire.Frame] = [
            .head(.init(status: 206, headers: ["etag": "\"v1\""], url: URL(string: "http://127.0.0.1:8080/a.mp3"))),
            .data(ByteBuffer(bytes: [0, 1, 2, 255])),
            .data(ByteBuffer()),
            .failure(NetworkFailure(.stalled, host: "example.org", port: 443)),
            .failure(NetworkFailure(.tls("bad certificate"), host: "example.org", port: 443)),
            .end,
        ]
        for frame in frames {
            #expect(try HelperWire.Frame(payload: payload(frame)) == frame)
        }
    }

    @Test func aFrameThatIsNotOneSaysWhat() {
        #expect(throws: HelperWireError.malformed("an empty frame")) { try HelperWire.Frame(payload: ByteBuffer()) }
        #expect(throws: HelperWireError.malformed("a frame of unknown kind 122")) {
            try HelperWire.Frame(payload: ByteBuffer(string: "z"))
        }
        #expect(throws: HelperWireError.malformed("a response head that is not JSON")) {
            try HelperWire.Frame(payload: ByteBuffer(string: "h{"))
        }
    }

    @Test func theRequestKeepsItsHeadersInOrder() throws {
        let request = TransportRequest(
            url: URL(string: "http://127.0.0.1/feed")!,
            headers: [("Range", "bytes=10-"), ("Authorization", "Basic eDp5")]
        )
        let wire = HelperWire.Request(
            request,
            userAgent: "feedsh/1",
            connectTimeout: .seconds(5),
            idleTimeout: .milliseconds(1500)
        )
        let back = try JSONDecoder().decode(HelperWire.Request.self, from: JSONEncoder().encode(wire))
        #expect(back == wire)
        #expect(back.idleTimeout == 1.5)
        #expect(back.transportRequest.headers.map(\.name) == ["Range", "Authorization"])
    }
}

/// HelperTransport against stand-in helpers: shell scripts that send prepared frames,
/// then end, fail or hang as a broken helper would.
@Suite("Transport helper process", .serialized)
struct HelperTransportTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-helper-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A helper that reads its request, sends `frames`, then runs `then` (a shell
    /// command). Its pid is in `pid` of the folder.
    func helper(_ frames: [HelperWire.Frame], then: String = "exit 0") throws -> HelperTransport {
        var bytes = ByteBuffer()
        for frame in frames { bytes.writeImmutableBuffer(frame.encoded()) }
        let framesFile = folder.appendingPathComponent("frames")
        try Data(bytes.readableBytesView).write(to: framesFile)
        let script = folder.appendingPathComponent("helper")
        try """
        #!/bin/sh
        echo $$ > '\(folder.path)/pid'
        head -n 1 > '\(folder.path)/request'
        cat '\(framesFile.path)'
        \(then)
        """.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return HelperTransport(name: "test", program: script.path)
    }

    var request: TransportRequest {
        TransportRequest(url: URL(string: "http://127.0.0.1:1/a.mp3")!, headers: [("Authorization", "Basic eDp5")])
    }

    /// Whether the helper whose pid it wrote is gone, within 10 s.
    func helperEnds() async throws -> Bool {
        let text = try String(contentsOf: folder.appendingPathComponent("pid"), encoding: .utf8)
        let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if kill(pid, 0) != 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func aBodyComesWholeAndTheRequestGoesOnStandardInput() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = try helper([
            .head(.init(status: 200, headers: ["content-length": "6"], url: nil)),
            .data(ByteBuffer(string: "abc")), .data(ByteBuffer(string: "def")), .end,
        ])
        let response = try await transport.send(request)
        #expect(response.status == 200)
        #expect(response.header("Content-Length") == "6")
        var body = ""
        for try await chunk in response.body { body += String(buffer: chunk) }
        #expect(body == "abcdef")
        let sent = try Data(contentsOf: folder.appendingPathComponent("request"))
        let wire = try JSONDecoder().decode(HelperWire.Request.self, from: sent)
        #expect(wire.transportRequest.headers.first?.value == "Basic eDp5")
        #expect(try await helperEnds())
    }

    @Test func aHelperThatDiesMidwayIsAFailureNotAShortBody() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = try helper([
            .head(.init(status: 200, headers: ["content-length": "100"], url: nil)), .data(ByteBuffer(string: "abc")),
        ])
        let response = try await transport.send(request)
        await #expect(throws: HelperWireError.endedEarly(program: transport.program)) {
            for try await _ in response.body {}
        }
    }

    @Test func theHelpersFailureIsTheRequestsFailure() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let refused = NetworkFailure(.connectionRefused, host: "127.0.0.1", port: 1)
        let transport = try helper([.failure(refused)])
        await #expect(throws: refused) { _ = try await transport.send(request) }
        #expect(refused.description == "cannot connect to 127.0.0.1:1: connection refused")
    }

    @Test func aResponseDroppedUnreadEndsItsHelper() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // A helper with more to send than the pipe holds, which would otherwise wait
        // to write it for ever.
        let transport = try helper(
            [.head(.init(status: 200, headers: [:], url: nil))],
            then: "exec head -c 10000000 /dev/zero"
        )
        do {
            let response = try await transport.send(request)
            #expect(response.status == 200)
        }
        #expect(try await helperEnds())
    }

    @Test func cancellingTheReadEndsTheHelper() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = try helper([.head(.init(status: 200, headers: [:], url: nil))], then: "exec sleep 60")
        let response = try await transport.send(request)
        let reading = Task {
            for try await _ in response.body {}
        }
        try await Task.sleep(for: .milliseconds(100))
        reading.cancel()
        _ = await reading.result
        #expect(try await helperEnds())
    }

    @Test func aMissingHelperSaysWhereFeedshLookedForIt() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = HelperTransport(name: "urlsession", program: folder.appendingPathComponent("nothing").path)
        let error = await #expect(throws: HelperWireError.self) { _ = try await transport.send(request) }
        #expect(error?.description == "cannot run \(transport.program): it is not an executable file")
    }

    /// The real helper, feedsh as SwiftPM builds it beside the test bundle, run as
    /// feedsh runs it, against the fixture server: the request's headers reach the
    /// server, the windows come back as one body, and a Range is answered from where
    /// it starts.
    @Test func theURLSessionHelperFetchesWholeAndFromAnOffset() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await FixtureServer.start()
        defer { Task { await server.stop() } }
        let transport = HelperTransport(
            name: "urlsession",
            program: Helpers.path("feedsh"),
            arguments: [HelperWire.urlSessionArgument]
        )
        defer { Task { await transport.shutdown() } }
        let size = 9_000_000
        let url = server.url("/media/t/helper.mp3?size=\(size)")
        let expected = Data(SyntheticMedia(key: "t/helper.mp3", version: 0, size: size).allBytes)
        func fetch(_ headers: [(name: String, value: String)]) async throws -> (TransportResponse, Data) {
            let response = try await transport.send(TransportRequest(url: url, headers: headers))
            var body = Data()
            for try await chunk in response.body { body.append(contentsOf: chunk.readableBytesView) }
            return (response, body)
        }
        let (whole, wholeBody) = try await fetch([("Authorization", "Basic eDp5")])
        #expect(whole.status == 200)
        #expect(wholeBody == expected)
        #expect(server.requests.first?.authorization == "Basic eDp5")
        #expect(server.requests.first?.userAgent == "feedsh")
        let (part, partBody) = try await fetch([("Range", "bytes=8000000-")])
        #expect(part.status == 206)
        #expect(part.header("content-range") == "bytes 8000000-\(size - 1)/\(size)")
        #expect(partBody == expected.suffix(from: 8_000_000))
    }
}
