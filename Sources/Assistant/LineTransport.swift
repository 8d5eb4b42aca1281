import Foundation
import Logging
import MCP

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
///   its id when the id can be read from its start (``JSONRPCID``), so the caller
///   is not left waiting.
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
        let (input, limit, continuation) = (self.input, self.limit, self.continuation)
        let refuse: @Sendable (LineSplitter.Piece) -> Void = { [weak self] piece in
            guard case .tooLong(let size, let id) = piece else { return }
            self?.enqueue(Self.tooLongAnswer(size: size, limit: limit, id: id))
        }
        Thread.detachNewThread {
            Self.readLines(from: input, limit: limit, into: continuation, refuse: refuse)
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
        let output = self.output
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            writes.async {
                do {
                    try Self.writeAll(line, to: output)
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

    /// Queues a line of the transport's own (an answer to a message too large).
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
        let message =
            "the message of \(size) bytes is larger than the \(limit >> 20) MiB feedsh mcp reads; it was not read"
        return Data(#"{"jsonrpc":"2.0","id":\#(idJSON),"error":{"code":-32600,"message":"\#(message)"}}"#.utf8)
    }

    /// Reads `input` until its end, handing each line to `continuation`.
    private static func readLines(
        from input: Int32,
        limit: Int,
        into continuation: AsyncThrowingStream<Data, any Error>.Continuation,
        refuse: @Sendable (LineSplitter.Piece) -> Void
    ) {
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
            for piece in splitter.append(buffer[..<count]) {
                switch piece {
                case .line(let line): continuation.yield(Data(line))
                case .tooLong: refuse(piece)
                }
            }
        }
        if let last = splitter.finish() {
            switch last {
            case .line(let line): continuation.yield(Data(line))
            case .tooLong: refuse(last)
            }
        }
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
            } else if (0x30...0x39).contains(byte) || (byte == 0x2D && captured.isEmpty) {
                captured.append(byte)
                value = captured
                if captured.count > 19 { settle(nil) }
            } else if space || byte == 0x2C || byte == 0x7D {
                settle(Int64(String(decoding: captured, as: UTF8.self)).map(JSONRPCID.number))
            } else {
                // A float, an exponent, an object, true: no id to answer under.
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
