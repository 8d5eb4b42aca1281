import Foundation
import Synchronization

/// One logical line of a script, with where it came from for error messages.
public struct ScriptLine: Sendable, Equatable {
    public let text: String
    /// `file:line` for files and standard input; nil for `-c` and the prompt.
    public let location: String?
    /// Why the line could not be read; `text` is empty then.
    public let problem: ScriptInputProblem?

    public init(text: String, location: String?, problem: ScriptInputProblem? = nil) {
        self.text = text
        self.location = location
        self.problem = problem
    }
}

/// A line of script input that is not a command line.
public enum ScriptInputProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// A NUL byte: scripts are text.
    case nulByte
    /// Longer than ``ScriptInput/maxLineLength`` bytes; the rest of it was skipped
    /// without being kept in memory.
    case lineTooLong(limit: Int)
    /// `read` failed.
    case unreadable(errno: Int32)

    public var description: String {
        switch self {
        case .nulByte: "a NUL byte: scripts are text"
        case .lineTooLong(let limit): "line longer than \(limit / 1024) KiB"
        case .unreadable(let code): "cannot read: \(String(cString: strerror(code)))"
        }
    }
}

/// Reads script lines from raw lines: a line ending in an unescaped backslash
/// continues on the next one, and the location is that of its first line.
public struct ScriptLines<Base: IteratorProtocol<Result<String, ScriptInputProblem>>>: Sequence, IteratorProtocol {
    private var base: Base
    private let source: String?
    private var number = 0

    /// `source` names the file (`s.feedsh`, `<stdin>`); nil for `-c` text.
    public init(_ base: Base, source: String?) {
        self.base = base
        self.source = source
    }

    public mutating func next() -> ScriptLine? {
        guard let first = base.next() else { return nil }
        number += 1
        let location = source.map { "\($0):\(number)" }
        var text: String
        switch first {
        case .success(let line): text = line
        case .failure(let problem): return ScriptLine(text: "", location: location, problem: problem)
        }
        while Self.continues(text) {
            text.removeLast()
            guard let more = base.next() else { break }
            number += 1
            switch more {
            case .success(let line): text += line
            case .failure(let problem): return ScriptLine(text: "", location: location, problem: problem)
            }
        }
        return ScriptLine(text: text, location: location)
    }

    /// An odd number of trailing backslashes: the last one escapes the newline.
    private static func continues(_ line: String) -> Bool {
        line.reversed().prefix { $0 == "\\" }.count % 2 == 1
    }
}

extension ScriptLines where Base == ScriptTextLines {
    /// The lines of `text` (a `-c` argument).
    public init(text: String, source: String?) {
        self.init(ScriptTextLines(text), source: source)
    }
}

/// The lines of a string, for ``ScriptLines``.
public struct ScriptTextLines: IteratorProtocol, Sendable {
    private var lines: IndexingIterator<[String]>

    public init(_ text: String) {
        // "\r\n" is one Character, so both endings are separators here.
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map(String.init)
        if lines.last == "" { lines.removeLast() }
        self.lines = lines.makeIterator()
    }

    public mutating func next() -> Result<String, ScriptInputProblem>? {
        lines.next().map { .success($0) }
    }
}

/// Lines read from a file descriptor as they arrive: a file, standard input, a
/// pipe or a FIFO (`-f <(...)`, `-f /dev/stdin`). Memory stays bounded: a line
/// longer than ``maxLineLength`` is refused as soon as that is known and the rest
/// of it skipped, and a NUL byte makes its line an error instead of vanishing.
public struct ScriptInput: IteratorProtocol, Sendable {
    public static let maxLineLength = 64 << 10
    private static let chunk = 64 << 10

    /// How much of a refused line is skipped looking for its end before the input
    /// counts as over (a line that never ends must not be read for ever).
    static let maxSkipped = 16 << 20

    private let fd: Int32
    /// Bytes of a refused line skipped so far; nil outside one.
    private var skipped: Int?
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    /// Reads `fd`, which the caller keeps open for as long as this is used.
    public init(fd: Int32) {
        self.fd = fd
    }

    public mutating func next() -> Result<String, ScriptInputProblem>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[start..<newline]
                start = newline + 1
                compact()
                if skipped != nil {
                    // The end of a line already refused: the next one follows.
                    skipped = nil
                    continue
                }
                return Self.decode(line)
            }
            if let count = skipped {
                // Still inside a refused line: drop what came, up to a point.
                skipped = count + buffer.count - start
                buffer.removeAll(keepingCapacity: true)
                start = 0
                if skipped! > Self.maxSkipped {
                    atEnd = true
                    return nil
                }
            } else if buffer.count - start > Self.maxLineLength {
                // Refused at once, even when the line never ends (`-f /dev/zero`);
                // the rest of it is skipped on the next call.
                skipped = buffer.count - start
                buffer.removeAll(keepingCapacity: true)
                start = 0
                return .failure(.lineTooLong(limit: Self.maxLineLength))
            }
            if atEnd {
                guard start < buffer.count, skipped == nil else { return nil }
                let line = buffer[start...]
                buffer.removeAll()
                start = 0
                return Self.decode(line)
            }
            if let problem = fill() { return .failure(problem) }
        }
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> Result<String, ScriptInputProblem> {
        if bytes.contains(0) { return .failure(.nulByte) }
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        return .success(text)
    }

    private mutating func compact() {
        if start > Self.chunk {
            buffer.removeFirst(start)
            start = 0
        }
    }

    private mutating func fill() -> ScriptInputProblem? {
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.chunk))
        while true {
            let (got, code) = buffer.withUnsafeMutableBytes { bytes in
                let got = read(fd, bytes.baseAddress! + old, Self.chunk)
                return (got, errno)
            }
            if got < 0, code == EINTR { continue }
            buffer.removeLast(Self.chunk - max(got, 0))
            if got < 0 {
                atEnd = true
                return .unreadable(errno: code)
            }
            if got == 0 { atEnd = true }
            return nil
        }
    }
}

extension ScriptLines: Sendable where Base: Sendable {}

/// Pulls the lines of a script on a serial queue of its own, one when asked.
///
/// Reading standard input, a pipe or a FIFO blocks in `read`, and a blocked thread
/// of Swift's cooperative pool starves everything else: on the release build a
/// SIGTERM while a script waited for its next line left feedsh unable to shut down
/// (its one cooperative thread sat in `read`). Dispatch gives this queue a thread
/// outside that pool.
public final class ScriptReader: @unchecked Sendable {
    // @unchecked: `pull` (and the iterator it holds) is called only by blocks on
    // `queue`, a serial queue, so no two threads ever touch it at once.
    private let pull: () -> ScriptLine?
    private let queue = DispatchQueue(label: "feedsh.script-reader")

    public init<Lines: Sequence<ScriptLine>>(_ lines: Lines) {
        var iterator = lines.makeIterator()
        pull = { iterator.next() }
    }

    /// The next line, or nil at the end.
    public func next() async -> ScriptLine? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.pull()) }
        }
    }
}

/// A task that can be cancelled before it exists: a cancel that comes first is
/// remembered and applied when the task starts.
public final class CancellableRun: Sendable {
    public init() {}

    private let state = Mutex<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    public func start(_ operation: sending @escaping @isolated(any) () async -> Void) {
        let task = Task(operation: operation)
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    public func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

extension ScriptLines where Base == ScriptInput {
    /// The lines of an open file descriptor, located as `source:N`.
    public init(fd: Int32, source: String) {
        self.init(ScriptInput(fd: fd), source: source)
    }
}

/// Why a script file cannot be read.
public struct ScriptFileError: Error, Sendable {
    /// In a few words: `No such file or directory`, `is a directory`.
    public let reason: String
}

/// Opening script files (`-f`, `source`): anything readable as a stream, a FIFO or
/// `/dev/stdin` included, but not a directory.
public enum ScriptFile {
    /// An open descriptor for `path`; the caller closes it.
    public static func open(_ path: String) throws(ScriptFileError) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ScriptFileError(reason: String(cString: strerror(errno))) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw ScriptFileError(reason: "is a directory")
        }
        return fd
    }
}
