import PlainText
import ShellKit

/// A failure a feature declares in its own folder (``SourcesFailure``,
/// ``LibraryFailure``…), or a lower module's typed error a feature shows as it is
/// (``FeedKit/FeedError``, ``Downloads/DownloadError``…). ``ShellError`` carries
/// it: a new feature's failures touch no central file.
protocol CommandFailure: Error, Sendable, CustomStringConvertible {
    /// A stable name for the kind of failure, for `--json`.
    var failureCode: String { get }
}

/// Why a shell command failed, in words for the person at the terminal.
///
/// A struct over a private enum, like ``FeedKit/FeedError``. The shell's own
/// failures (the command line, scripts, files, interruption) are its cases; a
/// feature's are a ``CommandFailure`` it carries as they are, so that their URL,
/// status and key path survive. Text from outside (names, paths, titles) is
/// sanitized when the error is made.
public struct ShellError: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case usage(UsageError)
        case unknownCommand(String, suggestion: String?)
        case syntax(String)
        /// `what` needs something loaded first: `lookup`, `search`, `tracks`.
        case nothingLoaded(what: String, run: String)
        case failure(any CommandFailure)
        case cancelled(what: String, note: String?)
        case superseded(what: String)
        case unreadableFile(path: String, reason: String)
        case unwritable(path: String, reason: String)
        case sourceCycle(path: String)
        case sourceTooDeep(limit: Int)
        case interrupted
        /// A failure in a sourced file, with its `file:line`.
        indirect case located(ShellError, location: String)
    }

    let kind: Kind

    /// A stable name for a kind of the shell's own failures, for `--json`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        init(_ name: String) { description = name }

        public static let usage = Code("usage")
        public static let unknownCommand = Code("unknown-command")
        public static let syntax = Code("syntax")
        public static let noPodcast = Code("no-podcast")
        public static let nothingLoaded = Code("nothing-loaded")
        public static let cancelled = Code("cancelled")
        public static let superseded = Code("superseded")
        public static let unreadableFile = Code("unreadable-file")
        public static let unwritable = Code("unwritable")
        public static let sourceCycle = Code("source-cycle")
        public static let sourceTooDeep = Code("source-too-deep")
        public static let interrupted = Code("interrupted")
    }

    static func usage(_ error: UsageError) -> ShellError { ShellError(kind: .usage(error)) }
    /// A command used wrongly: `problem` quotes what was typed safely (see
    /// ``SafeLine``), and the synopsis says how it is used.
    static func usage(_ problem: SafeLine? = nil, synopsis: String) -> ShellError {
        ShellError(kind: .usage(UsageError(problem?.description, synopsis: synopsis)))
    }
    static func unknownCommand(_ name: String, suggestion: String?) -> ShellError {
        ShellError(kind: .unknownCommand(SafeText.line(name), suggestion: suggestion))
    }
    static func syntax(_ message: String) -> ShellError { ShellError(kind: .syntax(message)) }
    static let noPodcast = ShellError(kind: .nothingLoaded(what: "podcast", run: "lookup"))
    static let noSearchResults = ShellError(kind: .nothingLoaded(what: "search results", run: "search TERM"))
    static let noTracks = ShellError(kind: .nothingLoaded(what: "songs listed", run: "tracks TERM"))
    /// A feature's failure, carried as it is.
    static func failure(_ failure: any CommandFailure) -> ShellError { ShellError(kind: .failure(failure)) }
    static func cancelled(_ what: String, note: String? = nil) -> ShellError {
        ShellError(kind: .cancelled(what: what, note: note))
    }
    static func superseded(_ what: String) -> ShellError { ShellError(kind: .superseded(what: what)) }
    static func unreadableFile(_ path: String, reason: String) -> ShellError {
        ShellError(kind: .unreadableFile(path: SafeText.line(path), reason: reason))
    }
    static func unwritable(_ path: String, reason: String) -> ShellError {
        ShellError(kind: .unwritable(path: SafeText.line(path), reason: reason))
    }
    static func sourceCycle(_ path: String) -> ShellError {
        ShellError(kind: .sourceCycle(path: SafeText.line(path)))
    }
    static func sourceTooDeep(limit: Int) -> ShellError { ShellError(kind: .sourceTooDeep(limit: limit)) }
    static let interrupted = ShellError(kind: .interrupted)
    static func located(_ error: ShellError, at location: String) -> ShellError {
        ShellError(kind: .located(error, location: location))
    }

    /// The feature's failure this error carries, if it is one.
    var failure: (any CommandFailure)? {
        if case .failure(let failure) = kind { return failure }
        return nil
    }

    /// The kind of failure; a feature's failure gives its own code.
    public var code: String {
        switch kind {
        case .usage: Code.usage.description
        case .unknownCommand: Code.unknownCommand.description
        case .syntax: Code.syntax.description
        case .nothingLoaded(let what, _): (what == "podcast" ? Code.noPodcast : Code.nothingLoaded).description
        case .failure(let failure): failure.failureCode
        case .cancelled: Code.cancelled.description
        case .superseded: Code.superseded.description
        case .unreadableFile: Code.unreadableFile.description
        case .unwritable: Code.unwritable.description
        case .sourceCycle: Code.sourceCycle.description
        case .sourceTooDeep: Code.sourceTooDeep.description
        case .interrupted: Code.interrupted.description
        case .located(let error, _): error.code
        }
    }

    public var description: String {
        switch kind {
        case .usage(let error): error.description
        case .unknownCommand(let name, let suggestion?):
            "unknown command '\(name)'; did you mean '\(suggestion)'?"
        case .unknownCommand(let name, nil): "unknown command '\(name)'; type 'help' for the list"
        case .syntax(let message): message
        case .nothingLoaded("podcast", _):
            // Said whether or not there are subscriptions: each way in, by name.
            "no podcast loaded: 'podcast N' loads subscription N ('podcasts' lists them), 'lookup' or 'open N' "
                + "one from the directory; or name the episode as P:E"
        case .nothingLoaded(let what, let run): "no \(what): run '\(run)' first"
        case .failure(let failure): Advice.described(failure)
        case .cancelled(let what, let note): "\(what) cancelled" + (note.map { "; \($0)" } ?? "")
        case .superseded(let what): "\(what) cancelled by a newer one"
        case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
        case .unwritable(let path, let reason): "cannot write to \(path): \(reason)"
        case .sourceCycle(let path): "\(path) is already being sourced (a cycle)"
        case .sourceTooDeep(let limit): "sources nested more than \(limit) deep"
        case .interrupted: "interrupted"
        case .located(let error, let location): "\(location): \(error.description)"
        }
    }
}
