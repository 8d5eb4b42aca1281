import Foundation

/// One logical line of a script, with where it came from for error messages.
public struct ScriptLine: Sendable, Equatable {
    public let text: String
    /// `file:line` for files and standard input; nil for `-c` and the prompt.
    public let location: String?

    public init(text: String, location: String?) {
        self.text = text
        self.location = location
    }
}

/// Reads script lines from raw lines: a line ending in an unescaped backslash
/// continues on the next one, and the location is that of its first line.
public struct ScriptLines<Base: IteratorProtocol<String>>: Sequence, IteratorProtocol {
    private var base: Base
    private let source: String?
    private var number = 0

    /// `source` names the file (`s.feedsh`, `<stdin>`); nil for `-c` text.
    public init(_ base: Base, source: String?) {
        self.base = base
        self.source = source
    }

    public mutating func next() -> ScriptLine? {
        guard var text = base.next() else { return nil }
        number += 1
        let first = number
        while Self.continues(text) {
            text.removeLast()
            guard let more = base.next() else { break }
            number += 1
            text += more
        }
        return ScriptLine(text: text, location: source.map { "\($0):\(first)" })
    }

    /// An odd number of trailing backslashes: the last one escapes the newline.
    private static func continues(_ line: String) -> Bool {
        line.reversed().prefix { $0 == "\\" }.count % 2 == 1
    }
}

extension ScriptLines where Base == IndexingIterator<[String]> {
    /// The lines of `text` (a file's contents or a `-c` argument).
    public init(text: String, source: String?) {
        // "\r\n" is one Character, so both endings are separators here.
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map(String.init)
        if lines.last == "" { lines.removeLast() }
        self.init(lines.makeIterator(), source: source)
    }
}

/// Lines of standard input, read as they arrive.
public struct StandardInputLines: IteratorProtocol, Sendable {
    public init() {}

    public mutating func next() -> String? {
        readLine(strippingNewline: true)
    }
}

extension Shell {
    /// Runs a script as ``run(script:keepGoing:)`` does, and ends it early on SIGINT
    /// (130), SIGTERM (143) or SIGHUP (129): the command running is cancelled and the
    /// status returned at once, even while the script waits for a line of standard
    /// input. The caller's ``close()`` then pauses the downloads, keeping their
    /// `.part` files.
    public func runScript<Lines: Sequence<ScriptLine> & Sendable>(
        _ script: Lines,
        keepGoing: Bool
    ) async -> ExitStatus {
        let (outcomes, continuation) = AsyncStream.makeStream(of: ExitStatus.self)
        let task = Task {
            continuation.yield(await self.run(script: script, keepGoing: keepGoing))
        }
        let watcher = SignalWatcher()
        for (signal, status) in [(SIGINT, ExitStatus.interrupted), (SIGTERM, .terminated), (SIGHUP, .hangUp)] {
            watcher.on(signal) {
                task.cancel()
                continuation.yield(status)
            }
        }
        defer { watcher.cancel() }
        var iterator = outcomes.makeAsyncIterator()
        let status = await iterator.next() ?? .failure
        if status == .interrupted || status == .terminated || status == .hangUp {
            console.printError("feedsh: interrupted; pausing downloads")
        }
        return status
    }
}

extension ScriptLines: Sendable where Base: Sendable {}
