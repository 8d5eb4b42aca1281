import Dispatch
import Foundation

/// Bytes handed from the network to the XML parser as they arrive: the response
/// body is written in (asynchronously, waiting while a megabyte is unread) and the
/// parser, on a thread of its own, reads them out (blocking until there are some).
/// A feed is then never held whole: parsing ten megabytes costs a megabyte of
/// buffer, not ten.
///
/// The bytes are mended as they go in (``XMLMender``): feeds in the wild carry
/// escape sequences and bells in their text, `&nbsp;` and bare `&`s, and
/// libxml2 would stop at the first. A UTF-16 document (its BOM says so) is left
/// alone.
final class ByteChannel: @unchecked Sendable {
    // @unchecked Sendable, and why it is safe: every stored `var` below is read and
    // written only while `condition` is locked; `condition` and `capacity` are set
    // once at init.
    private let condition = NSCondition()
    private let capacity: Int
    private var buffer: [UInt8] = []
    private var readOffset = 0
    private var finished = false
    /// Why the body broke off, once it has: the stream's `streamError`.
    private var failure: NSError?
    /// The parser stopped reading (done, or refused the document).
    private var readerGone = false
    private var spaceWaiter: CheckedContinuation<Void, Never>?
    private var status: Stream.Status = .notOpen
    private var filter = FeedBytes()

    init(capacity: Int = 1 << 20) {
        self.capacity = capacity
    }

    /// A channel that already holds all of `data`, for a document in memory.
    init(contents data: Data) {
        capacity = max(1, data.count)
        data.withUnsafeBytes { append($0) }
        filter.finish(into: &buffer)
        finished = true
    }

    private var unread: Int { buffer.count - readOffset }

    // MARK: The network's side

    /// Appends `bytes`, first waiting while `capacity` bytes are unread. False once
    /// the parser has stopped reading: the rest of the body is not wanted.
    func write(_ bytes: [UInt8]) async -> Bool {
        while true {
            let wait: Bool = locked { !readerGone && unread >= capacity }
            guard wait else { break }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = locked { () -> Bool in
                    if readerGone || unread < capacity { return true }
                    spaceWaiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return locked {
            guard !readerGone else { return false }
            bytes.withUnsafeBytes { append($0) }
            condition.signal()
            return true
        }
    }

    /// Adds bytes, dropping forbidden controls; `condition` is locked (or the
    /// channel not yet shared).
    private func append(_ bytes: UnsafeRawBufferPointer) {
        if readOffset > 0, readOffset >= buffer.count / 2 {
            buffer.removeFirst(readOffset)
            readOffset = 0
        }
        filter.take(bytes, into: &buffer)
    }

    /// No more bytes will come; `failure` says why when the body broke off (the
    /// parser then reads an error, not the end of the document).
    func finish(failure: String? = nil) {
        locked {
            filter.finish(into: &buffer)
            finished = true
            self.failure = failure.map {
                NSError(domain: "feedsh.feed-body", code: 1, userInfo: [NSLocalizedDescriptionKey: $0])
            }
            condition.broadcast()
        }
    }

    // MARK: The parser's side

    /// The parser is done with the stream; a writer waiting for space goes on.
    func readerFinished() {
        let waiter = locked { () -> CheckedContinuation<Void, Never>? in
            readerGone = true
            defer { spaceWaiter = nil }
            return spaceWaiter
        }
        waiter?.resume()
    }

    func open() { locked { status = .open } }
    func close() { locked { status = .closed } }
    var streamStatus: Stream.Status { locked { status } }
    var hasBytesAvailable: Bool { locked { unread > 0 || !finished } }
    /// Why the body broke off; set before a read returns -1.
    var streamError: NSError? { locked { failure } }

    /// Blocks until bytes are there; 0 at the end, -1 when the body broke off (and
    /// ``streamError`` then says why: `XMLParser` reads it after a -1, and
    /// FoundationXML traps when there is none).
    func read(_ out: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        condition.lock()
        while unread == 0, !finished { condition.wait() }
        guard unread > 0 else {
            status = failure == nil ? .atEnd : .error
            let result = failure == nil ? 0 : -1
            condition.unlock()
            return result
        }
        let count = min(maxLength, unread)
        buffer.withUnsafeBufferPointer { source in
            out.update(from: source.baseAddress! + readOffset, count: count)
        }
        readOffset += count
        var waiter: CheckedContinuation<Void, Never>?
        if unread < capacity {
            waiter = spaceWaiter
            spaceWaiter = nil
        }
        condition.unlock()
        waiter?.resume()
        return count
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}

/// The parser's view of a ``ByteChannel``: an `InputStream` (what `XMLParser`
/// reads), made on the parser's thread and used there only.
final class ChannelStream: InputStream {
    private let channel: ByteChannel

    init(_ channel: ByteChannel) {
        self.channel = channel
        super.init(data: Data())
    }

    override func open() { channel.open() }
    override func close() { channel.close() }
    override var streamStatus: Stream.Status { channel.streamStatus }
    override var hasBytesAvailable: Bool { channel.hasBytesAvailable }
    /// Overridden: the inherited getter asks a CFReadStream this subclass does not
    /// have, and traps (SIGILL) when the parser reads it after a failed read.
    override var streamError: (any Error)? { channel.streamError }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        channel.read(buffer, maxLength: maxLength)
    }
}

/// A feed's bytes on their way to the parser: mended (``XMLMender``) unless the
/// document is UTF-16 (its BOM says so), whichever way they come (the network's
/// ``ByteChannel``, a spooled first read's ``FeedFileStream``).
struct FeedBytes {
    private var sawFirstBytes = false
    private var isUTF16 = false
    private var mender = XMLMender()

    /// Appends `bytes`, mended, to `out`.
    mutating func take(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if !sawFirstBytes, let first = bytes.first {
            sawFirstBytes = true
            isUTF16 = first == 0xFE || first == 0xFF
        }
        if isUTF16 {
            out.append(contentsOf: bytes)
        } else {
            mender.mend(bytes, into: &out)
        }
    }

    /// The document ended: what waited for more bytes goes to `out`.
    mutating func finish(into out: inout [UInt8]) {
        if !isUTF16 { mender.finish(into: &out) }
    }
}

/// A feed's body in an open file, read from its start and mended on the way as
/// ``ByteChannel`` mends the network's: what `XMLParser` reads when a new
/// subscription's first read is parsed from where it was spooled.
final class FeedFileStream: InputStream {
    private let descriptor: Int32
    private var filter = FeedBytes()
    private var pending: [UInt8] = []
    /// What one read of the file takes, kept for the stream's life.
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)
    private var offset = 0
    private var atEnd = false
    private var failure: NSError?
    private var status: Stream.Status = .notOpen

    /// Reads `descriptor` (open for reading) from byte 0; it stays the caller's.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        super.init(data: Data())
    }

    override func open() {
        status = lseek(descriptor, 0, SEEK_SET) == 0 ? .open : .error
        if status == .error {
            failure = Self.error("the spooled feed cannot be read: \(String(cString: strerror(errno)))")
        }
    }

    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var hasBytesAvailable: Bool { offset < pending.count || !atEnd }
    /// Overridden, as ``ChannelStream``'s: the inherited getter traps here.
    override var streamError: (any Error)? { failure }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard failure == nil else { return -1 }
        while offset == pending.count, !atEnd {
            pending.removeAll(keepingCapacity: true)
            offset = 0
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = Self.error("the spooled feed cannot be read: \(String(cString: strerror(errno)))")
                status = .error
                return -1
            }
            if count == 0 {
                filter.finish(into: &pending)
                atEnd = true
            } else {
                chunk.withUnsafeBytes { filter.take(UnsafeRawBufferPointer(rebasing: $0[..<count]), into: &pending) }
            }
        }
        guard offset < pending.count else {
            status = .atEnd
            return 0
        }
        let count = min(maxLength, pending.count - offset)
        pending.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: count) }
        offset += count
        return count
    }

    private static func error(_ text: String) -> NSError {
        NSError(domain: "feedsh.feed-body", code: 2, userInfo: [NSLocalizedDescriptionKey: text])
    }
}
