import Foundation
import Testing

@testable import Assistant

/// How `feedsh mcp` cuts its input into messages and answers one too large,
/// without a process or a pipe.
@Suite("MCP lines")
struct LineTransportTests {
    @Test func linesComeOutWholeWhereverTheReadsCutThem() {
        var splitter = LineSplitter(limit: 100)
        let text = Array("{\"a\":1}\n\n{\"b\":2}\n{\"c\"".utf8)
        var pieces: [LineSplitter.Piece] = []
        // One byte a read, as a slow pipe gives them.
        for byte in text { pieces += splitter.append([byte]) }
        #expect(pieces == [.line(Array("{\"a\":1}".utf8)), .line(Array("{\"b\":2}".utf8))])
        #expect(splitter.append(Array(":3}".utf8)).isEmpty)
        // The input ended without a newline: the last line still counts.
        #expect(splitter.finish() == .line(Array("{\"c\":3}".utf8)))
        #expect(splitter.finish() == nil)
    }

    @Test func aLineOverTheLimitIsCountedNotKeptAndTheNextOneIsRead() {
        var splitter = LineSplitter(limit: 64)
        let start = Array(#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"words":""#.utf8)
        var pieces = splitter.append(start)
        for _ in 0..<1000 { pieces += splitter.append(Array(repeating: UInt8(ascii: "a"), count: 1000)) }
        pieces += splitter.append(Array("\"}}\n{\"id\":8}\n".utf8))
        #expect(pieces == [.tooLong(start.count + 1_000_000 + 3, id: .number(7)), .line(Array("{\"id\":8}".utf8))])
    }

    @Test func onlyATopLevelIdThatCanBeWrittenBackIsRead() {
        func id(_ text: String) -> JSONRPCID? { JSONRPCID.read(fromStartOf: Array(text.utf8)) }
        #expect(id(#"{"jsonrpc":"2.0","id":12,"method":"x"}"#) == .number(12))
        #expect(id(#"{ "id" : -3 }"#) == .number(-3))
        #expect(id(#"{"id":"abc-1","method":"x"}"#) == .string("abc-1"))
        // An "id" inside the parameters is not the message's.
        #expect(id(#"{"params":{"id":5},"id":6}"#) == .number(6))
        #expect(id(#"{"params":{"id":5},"method":"x""#) == nil)
        // A float, an escaped string, a number the prefix cuts: none is answered.
        #expect(id(#"{"id":1.5}"#) == nil)
        #expect(id(#"{"id":"a\"b"}"#) == nil)
        #expect(id(#"{"id":12"#) == nil)
        #expect(id(#"{"method":"x","params":{"words":"aaaa"#) == nil)
        // Where the Python SDK writes it: after the parameters.
        #expect(id(#"{"method":"tools/call","params":{"id":"x","a":"}\"{"},"jsonrpc":"2.0","id":9}"#) == .number(9))
    }

    /// The id of an over-long message is read wherever it stands, without the
    /// message being kept.
    @Test func theIdOfALineOverTheLimitIsFoundAtItsEnd() {
        var splitter = LineSplitter(limit: 64)
        var pieces = splitter.append(Array(#"{"method":"tools/call","params":{"words":""#.utf8))
        for _ in 0..<100 { pieces += splitter.append(Array(repeating: UInt8(ascii: "b"), count: 1000)) }
        pieces += splitter.append(Array(#""},"jsonrpc":"2.0","id":"call-4"}"#.utf8) + [0x0A])
        guard case .tooLong(_, let id)? = pieces.first else {
            Issue.record("\(pieces)")
            return
        }
        #expect(id == .string("call-4"))
    }

    @Test func theRefusalIsJSONRPCUnderTheCallersId() throws {
        for (id, expected) in [(JSONRPCID.number(7), 7 as Any), (.string("x"), "x"), (nil, NSNull())] {
            let data = LineTransport.tooLongAnswer(size: 10 << 20, limit: 4 << 20, id: id)
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(object["jsonrpc"] as? String == "2.0")
            #expect("\(object["id"] ?? "")" == "\(expected)")
            let error = try #require(object["error"] as? [String: Any])
            #expect(error["code"] as? Int == -32600)
            #expect((error["message"] as? String)?.contains("10485760 bytes is larger than the 4 MiB") == true)
        }
    }

    /// Answers sent from many tasks at once, each far larger than a pipe holds,
    /// come out of the pipe whole, one a line.
    @Test func answersSentTogetherAreWrittenWhole() async throws {
        var ends: [Int32] = [0, 0]
        var input: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0 && pipe(&input) == 0)
        let (reading, writing) = (ends[0], ends[1])
        // An input that ends at once: the transport reads nothing.
        close(input[1])
        defer { close(input[0]) }
        let transport = LineTransport(input: input[0], output: writing)
        let reader = Task.detached { () -> [String] in
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                all += buffer[..<count]
            }
            return String(decoding: all, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        try await transport.connect()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let body = String(repeating: Character(UnicodeScalar(UInt8(97 + index))), count: 300_000)
                    try await transport.send(Data(#"{"id":\#(index),"text":"\#(body)"}"#.utf8))
                }
            }
            try await group.waitForAll()
        }
        close(writing)
        let lines = await reader.value
        close(reading)
        #expect(lines.count == 8)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let index = try #require(object["id"] as? Int)
            let letter = String(UnicodeScalar(UInt8(97 + index)))
            #expect(object["text"] as? String == String(repeating: letter, count: 300_000))
        }
    }

    /// A message the SDK would answer under another id, or not at all, is
    /// answered here under the id the caller wrote.
    @Test(arguments: [
        (
            Array(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"x":""#.utf8) + [0xFF, 0xFE]
                + Array(#""}}"#.utf8),
            #""id":3"#, -32700
        ),
        (Array(#"{"jsonrpc":"2.0","method":"x","params":{"w":"\ud800"},"id":"a-1"}"#.utf8), #""id":"a-1""#, -32700),
        (Array(#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#.utf8), #""id":1.5"#, -32600),
        (Array(#"{"jsonrpc":"2.0","id":2e3,"method":"tools/list"}"#.utf8), #""id":2e3"#, -32600),
    ])
    func aMalformedMessageIsAnsweredUnderItsOwnId(line: [UInt8], id: String, code: Int) throws {
        let answer = try #require(LineTransport.malformedAnswer(line))
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.contains(id), "\(text)")
        let object = try #require(try JSONSerialization.jsonObject(with: answer) as? [String: Any])
        #expect((object["error"] as? [String: Any])?["code"] as? Int == code)
    }

    @Test func wellFormedMessagesGoToTheServer() {
        for text in [
            #"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
            #"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"w":"\ud83d\ude00 \\ud800"}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            #expect(LineTransport.malformedAnswer(Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// Through the transport itself: the answer is written, and the good message
    /// after it still reaches the server.
    @Test func theTransportAnswersAMalformedMessageAndGoesOn() async throws {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        #expect(pipe(&input) == 0 && pipe(&output) == 0)
        defer { close(input[0]); close(output[0]) }
        let transport = LineTransport(input: input[0], output: output[1])
        try await transport.connect()
        let lines =
            #"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"# + "\n" + #"{"jsonrpc":"2.0","id":2,"method":"ping"}"#
            + "\n"
        _ = lines.utf8CString.withUnsafeBytes { write(input[1], $0.baseAddress, lines.utf8.count) }
        close(input[1])
        var received: [String] = []
        for try await message in await transport.receive() {
            received.append(String(decoding: message, as: UTF8.self))
            // The server's answer: the end of input is passed on once each request has one.
            try await transport.send(Data(#"{"jsonrpc":"2.0","id":2,"result":{}}"#.utf8))
        }
        #expect(received == [#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#])
        // The answer was queued on the writer; it is in the pipe once written.
        try await transport.send(Data("{}".utf8))
        close(output[1])
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(output[0], $0.baseAddress, $0.count) }
        let written = String(decoding: bytes[..<max(0, count)], as: UTF8.self)
        #expect(written.hasPrefix(#"{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600"#), "\(written)")
    }
}

/// Which requests still wait for an answer when the client's input ends.
struct PendingAnswersTests {
    @Test func aRequestWaitsForItsOwnAnswerOrItsCancellation() {
        let pending = PendingAnswers()
        pending.read(Array(#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.utf8))
        pending.read(Array(#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#.utf8))
        pending.read(Array(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8))
        // A string id is not the number it spells.
        pending.sent(Data(#"{"jsonrpc":"2.0","id":1,"result":{}}"#.utf8))
        #expect(!pending.isEmpty)
        // A notification the server sends answers nothing.
        pending.sent(Data(#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#.utf8))
        #expect(!pending.isEmpty)
        pending.read(
            Array(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"1"}}"#.utf8)
        )
        #expect(pending.isEmpty)
    }
}
