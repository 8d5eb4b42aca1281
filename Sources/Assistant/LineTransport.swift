import Foundation
import Logging
import MCP
import Synchronization

/// MCP over standard input and output, one JSON-RPC message a line, as the SDK's
/// `StdioTransport` speaks it, but safe under a client that sends many calls at
/// once or very large messages:
/// - **Each message is written whole.** The SDK's transport suspends inside a
///   message when the pipe is full, and the answer to another call, sent
///   meanwhile, was written into the middle of it: neither was JSON, and the
///   client waited for both until it timed out. Here every message goes through
///   one serial queue that writes it to the end before it starts the next.
/// - **Lines are found in linear time.** The SDK's transport searched the whole
///   pending buffer again after every 4 KiB read (a 10 MB message took minutes
///   and held up every other call); ``LineSplitter`` looks at each byte once.
/// - **A message has a size limit** (``maximumMessage``). A longer line is
///   dropped as it arrives, never held, and answered with a JSON-RPC error under
///   its id, read wherever it stands (``JSONRPCIDScanner``), so the caller is not
///   left waiting.
/// - **A malformed message is answered here** (``malformedAnswer(_:)``): one the
///   SDK would answer under another id, or not at all.
/// - **Every request read is answered**, also when the client closes its end
///   right after sending (`printf '…' | feedsh mcp`): the end of input is passed
///   on once the server answered each request (``PendingAnswers``); the server
///   stops when its input ends and dropped the answers still being made.
public actor LineTransport: Transport {
    public nonisolated let logger: Logger
    /// The most a message may be: 4 MiB.
    public static let maximumMessage = 4 << 20

    private let input: Int32
    private let output: Int32
    private let limit: Int
    /// Every write, in the order sent, each to its end before the next.
    private nonisolated let writes = DispatchQueue(label: "feedsh.mcp.output")
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var connected = false
    /// The requests read and not yet answered.
    private nonisolated let pending = PendingAnswers()

    public init(
        input: Int32 = STDIN_FILENO,
        output: Int32 = STDOUT_FILENO,
        maximumMessage: Int = LineTransport.maximumMessage
    ) {
        self.input = input
        self.output = output
        limit = maximumMessage
        logger = Logger(label: "feedsh.mcp.transport") { _ in SwiftLogNoOpLogHandler() }
        (messages, continuation) = AsyncThrowingStream.makeStream()
    }

    /// Starts reading standard input, on a thread of its own (a blocking read
    /// there holds up none of Swift's few cooperative threads).
    public func connect() async throws {
        guard !connected else { return }
        connected = true
        let (input, limit, continuation, pending) = (self.input, self.limit, self.continuation, self.pending)
        let refuse: @Sendable (Data) -> Void = { [weak self] answer in self?.enqueue(answer) }
        Thread.detachNewThread {
            Self.readLines(from: input, limit: limit, into: continuation, pending: pending, refuse: refuse)
        }
    }

    public func disconnect() async {
        guard connected else { return }
        connected = false
        continuation.finish()
    }

    /// Writes `data` and a newline, whole, after every message sent before it.
    public func send(_ data: Data) async throws {
        guard connected else { throw MCPError.transportError(POSIXError(.ENOTCONN)) }
        let line = data + [0x0A]
        let (output, pending) = (self.output, self.pending)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            writes.async {
                do {
                    try Self.writeAll(line, to: output)
                    pending.sent(data)
                    done.resume()
                } catch {
                    done.resume(throwing: MCPError.transportError(error))
                }
            }
        }
    }

    public func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }

    /// Queues a line of the transport's own: its answer to a message too large or
    /// malformed for the server to answer.
    private nonisolated func enqueue(_ data: Data) {
        let line = data + [0x0A]
        let output = self.output
        writes.async { try? Self.writeAll(line, to: output) }
    }

    /// The JSON-RPC error for a message of `size` bytes, past `limit`: an invalid
    /// request (-32600), under the message's own id when it was read.
    static func tooLongAnswer(size: Int, limit: Int, id: JSONRPCID?) -> Data {
        let idJSON: String =
            switch id {
            case .number(let number)?: String(number)
            case .string(let text)?: "\"\(text)\""
            case nil: "null"
            }
        return errorAnswer(
            idJSON: idJSON,
            code: -32600,
            message:
                "the message of \(size) bytes is larger than the \(limit >> 20) MiB feedsh mcp reads; it was not read"
        )
    }

    /// A JSON-RPC error answer under `idJSON`, an id as JSON text; `message` holds
    /// nothing JSON would have to escape.
    private static func errorAnswer(idJSON: String, code: Int, message: String) -> Data {
        Data(#"{"jsonrpc":"2.0","id":\#(idJSON),"error":{"code":\#(code),"message":"\#(message)"}}"#.utf8)
    }

    /// The error answer to a message the SDK would answer under another id, or
    /// not at all: one that is not UTF-8, holds a lone UTF-16 surrogate (`\uD800`),
    /// or has an id that is a number with a fraction or an exponent. It goes out
    /// under the id as the caller wrote it (`null` when none can be read), so
    /// the caller gets its answer. Nil for any other message.
    static func malformedAnswer(_ line: [UInt8]) -> Data? {
        var scanner = JSONRPCIDScanner()
        scanner.take(line)
        let id = scanner.rawID ?? "null"
        let problem: (code: Int, message: String)
        if String(validating: line, as: UTF8.self) == nil {
            problem = (-32700, "the message is not UTF-8")
        } else if hasLoneSurrogate(line) {
            problem = (-32700, "the message holds a lone UTF-16 surrogate escape")
        } else if scanner.settled, scanner.id == nil, let raw = scanner.rawID, raw.first != "\"" {
            problem = (-32600, "an id must be a string or a whole number, not \(raw)")
        } else {
            return nil
        }
        return errorAnswer(idJSON: id, code: problem.code, message: problem.message)
    }

    /// Whether a `\uD800`-`\uDBFF` escape is not followed by a `\uDC00`-`\uDFFF`
    /// one, or a low one stands alone.
    static func hasLoneSurrogate(_ line: [UInt8]) -> Bool {
        func escape(at index: Int) -> UInt16? {
            guard index + 5 < line.count, line[index] == 0x5C, line[index + 1] == 0x75 else { return nil }
            return UInt16(String(decoding: line[(index + 2)...(index + 5)], as: UTF8.self), radix: 16)
        }
        var index = 0
        while index < line.count {
            guard line[index] == 0x5C else {
                index += 1
                continue
            }
            guard let unit = escape(at: index) else {
                index += 2  // another escape: \\, \", \n...
                continue
            }
            if (0xD800...0xDBFF).contains(unit) {
                guard let low = escape(at: index + 6), (0xDC00...0xDFFF).contains(low) else { return true }
                index += 12
            } else if (0xDC00...0xDFFF).contains(unit) {
                return true
            } else {
                index += 6
            }
        }
        return false
    }

    /// Reads `input` until its end, handing each line to `continuation`; at the
    /// end, waits for the requests read to be answered (``PendingAnswers/drain(within:)``)
    /// before it finishes the stream.
    private static func readLines(
        from input: Int32,
        limit: Int,
        into continuation: AsyncThrowingStream<Data, any Error>.Continuation,
        pending: PendingAnswers,
        refuse: @Sendable (Data) -> Void
    ) {
        func take(_ piece: LineSplitter.Piece) {
            switch piece {
            case .line(let line):
                if let answer = malformedAnswer(line) {
                    refuse(answer)
                } else {
                    pending.read(line)
                    continuation.yield(Data(line))
                }
            case .tooLong(let size, let id):
                refuse(tooLongAnswer(size: size, limit: limit, id: id))
            }
        }
        var splitter = LineSplitter(limit: limit)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN {
                var ready = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                _ = poll(&ready, 1, 1000)
                continue
            }
            guard count > 0 else { break }
            for piece in splitter.append(buffer[..<count]) { take(piece) }
        }
        if let last = splitter.finish() { take(last) }
        pending.drain(within: PendingAnswers.longestWait)
        continuation.finish()
    }

    /// Writes all of `data` to `descriptor`, waiting while the pipe is full (also
    /// where the descriptor was made non-blocking by another program).
    private static func writeAll(_ data: Data, to descriptor: Int32) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EINTR {
                    continue
                } else if errno == EAGAIN {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, 1000)
                } else {
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
            }
        }
    }
}

/// A JSON-RPC id: a number or a string.
enum JSONRPCID: Sendable, Equatable {
    case number(Int64)
    case string(String)

    /// The top-level `"id"` of the JSON object that `bytes` begin (see
    /// ``JSONRPCIDScanner``).
    static func read(fromStartOf bytes: some Collection<UInt8>) -> JSONRPCID? {
        var scanner = JSONRPCIDScanner()
        scanner.take(bytes)
        return scanner.id
    }
}

/// The requests a client sent that the server has not answered yet, by id, so
/// that the end of the client's input waits for their answers.
final class PendingAnswers: Sendable {
    private let open = Mutex<[String: Int]>([:])

    /// How long the end of input waits for answers: a tool call on a slow feed
    /// may take minutes; past this the server stops anyway.
    static let longestWait = Duration.seconds(300)

    /// A message read: a request (a method and an id) waits for its answer; a
    /// request the client cancelled gets none (MCP's `notifications/cancelled`).
    func read(_ line: [UInt8]) {
        guard let object = Self.object(Data(line)), let method = object["method"] as? String else { return }
        if method == "notifications/cancelled" {
            if let params = object["params"] as? [String: Any], let key = Self.key(of: params["requestId"]) {
                forget(key)
            }
        } else if let key = Self.key(of: object["id"]) {
            open.withLock { $0[key, default: 0] += 1 }
        }
    }

    /// A message written: an answer (an id, no method) is its request's.
    func sent(_ data: Data) {
        guard let object = Self.object(data), object["method"] == nil, let key = Self.key(of: object["id"]) else {
            return
        }
        forget(key)
    }

    private func forget(_ key: String) {
        open.withLock { open in
            guard let count = open[key] else { return }
            open[key] = count > 1 ? count - 1 : nil
        }
    }

    var isEmpty: Bool { open.withLock { $0.isEmpty } }

    /// Blocks (on the reading thread) until every request read was answered,
    /// or `within` passed.
    func drain(within: Duration) {
        let deadline = ContinuousClock.now + within
        while !isEmpty, ContinuousClock.now < deadline {
            usleep(10_000)
        }
    }

    private static func object(_ data: Data) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// An id as one text for numbers and strings (nil for none).
    private static func key(of id: Any?) -> String? {
        switch id {
        case let text as String: "s" + text
        case let number as NSNumber: "n" + number.stringValue
        default: nil
        }
    }
}

/// Reads the top-level `"id"` of a JSON object passed through it, in pieces, in
/// constant memory: wherever the id stands (the Python SDK writes it after the
/// parameters), it is found without keeping the message. Only an integer, or a
/// string of printable ASCII without escapes, is taken, so that an answer never
/// goes out under an id the caller did not send; anything else, or an object that
/// ends or is cut before its id, gives nil.
struct JSONRPCIDScanner {
    private(set) var id: JSONRPCID?
    /// The id was read, or can no longer be: the rest is not looked at.
    private(set) var settled = false
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var expectKey = false
    private var readingKey = false
    private var key: [UInt8] = []
    private var keyPlain = true
    /// The key just read was `"id"`: its value follows the colon.
    private var idNext = false
    /// The id's value as it is read (nil: not reading it).
    private var value: [UInt8]?
    private var valueIsString = false
    /// The id as the message writes it (a number, or a plain string with its
    /// quotes), when it was read whole, even one that is no id to answer under
    /// (`1.5`): an error about it can name it and go out under it.
    private(set) var rawID: String?

    mutating func take(_ bytes: some Collection<UInt8>) {
        for byte in bytes {
            if settled { return }
            take(byte)
        }
    }

    private mutating func settle(_ found: JSONRPCID?) {
        id = found
        settled = true
    }

    private mutating func take(_ byte: UInt8) {
        let space = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        if var captured = value {
            if valueIsString {
                if byte == 0x22 {
                    rawID = "\"" + String(decoding: captured, as: UTF8.self) + "\""
                    settle(.string(String(decoding: captured, as: UTF8.self)))
                } else if byte < 0x20 || byte >= 0x7F || byte == 0x5C || captured.count >= 128 {
                    settle(nil)
                } else {
                    captured.append(byte)
                    value = captured
                }
            } else if captured.isEmpty, byte == 0x22 {
                valueIsString = true
            } else if captured.isEmpty, space {
                return
            } else if (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x2B || byte == 0x2E || byte == 0x65
                || byte == 0x45
            {
                // Digits, and what a float or an exponent adds (kept for rawID).
                captured.append(byte)
                value = captured
                if captured.count > 40 { settle(nil) }
            } else if space || byte == 0x2C || byte == 0x7D {
                let text = String(decoding: captured, as: UTF8.self)
                if Double(text) != nil { rawID = text }
                settle(Int64(text).map(JSONRPCID.number))
            } else {
                // An object, true, null: no id to answer under.
                settle(nil)
            }
            return
        }
        if inString {
            if escaped {
                escaped = false
                if readingKey { keyPlain = false }
            } else if byte == 0x5C {
                escaped = true
            } else if byte == 0x22 {
                inString = false
                if readingKey {
                    readingKey = false
                    idNext = keyPlain && key == [0x69, 0x64]
                }
            } else if readingKey, key.count < 3 {
                key.append(byte)
            }
            return
        }
        switch byte {
        case 0x22:
            inString = true
            if depth == 1, expectKey {
                (readingKey, key, keyPlain, expectKey) = (true, [], true, false)
            }
        case 0x7B, 0x5B:
            depth += 1
            expectKey = depth == 1 && byte == 0x7B
            idNext = false
        case 0x7D, 0x5D:
            depth -= 1
            if depth <= 0 { settle(nil) }
        case 0x2C:
            expectKey = depth == 1
            idNext = false
        case 0x3A:
            if depth == 1, idNext { (value, valueIsString) = ([], false) }
            idNext = false
        default:
            break
        }
    }
}

/// Cuts a byte stream into lines (without their `\n`; empty ones left out),
/// looking at each byte once. A line longer than `limit` is not kept: its bytes
/// are counted, and read for the message's id, as they pass, and it comes out as
/// ``Piece/tooLong(_:id:)``.
struct LineSplitter {
    enum Piece: Equatable {
        case line([UInt8])
        case tooLong(Int, id: JSONRPCID?)
    }

    let limit: Int
    private var pending: [UInt8] = []
    /// Inside a line past the limit: its size so far, and its id as read.
    private var dropping: (size: Int, id: JSONRPCIDScanner)?

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes the next bytes; returns the lines they completed.
    mutating func append(_ chunk: some Collection<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        var rest = chunk[...]
        while let newline = rest.firstIndex(of: 0x0A) {
            take(rest[..<newline])
            if let piece = endLine() { pieces.append(piece) }
            rest = rest[rest.index(after: newline)...]
        }
        take(rest)
        return pieces
    }

    /// The last line, when the input ended without a newline.
    mutating func finish() -> Piece? {
        endLine()
    }

    private mutating func take(_ bytes: some Collection<UInt8>) {
        if var dropped = dropping {
            dropped.size += bytes.count
            if !dropped.id.settled { dropped.id.take(bytes) }
            dropping = dropped
        } else if pending.count + bytes.count > limit {
            var scanner = JSONRPCIDScanner()
            scanner.take(pending)
            scanner.take(bytes)
            dropping = (pending.count + bytes.count, scanner)
            pending = []
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    private mutating func endLine() -> Piece? {
        defer {
            pending = []
            dropping = nil
        }
        if let dropped = dropping { return .tooLong(dropped.size, id: dropped.id.id) }
        return pending.isEmpty ? nil : .line(pending)
    }
}
