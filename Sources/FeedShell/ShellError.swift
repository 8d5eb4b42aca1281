import Downloads
import FeedKit

/// Why a shell command failed, in words for the person at the terminal.
///
/// A struct over a private enum, like ``FeedKit/FeedError``; API failures are carried
/// as they are so that their URL, status and key path survive.
public struct ShellError: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case usage(problem: String?, synopsis: String)
        case unknownCommand(String, suggestion: String?)
        case syntax(String)
        case noPodcast
        case feed(FeedError)
        case download(DownloadError)
        case other(String)
        /// A failure in a sourced file, with its `file:line`.
        indirect case located(ShellError, location: String)
    }

    let kind: Kind

    static func usage(_ problem: String? = nil, synopsis: String) -> ShellError {
        ShellError(kind: .usage(problem: problem, synopsis: synopsis))
    }
    static func unknownCommand(_ name: String, suggestion: String?) -> ShellError {
        ShellError(kind: .unknownCommand(name, suggestion: suggestion))
    }
    static func syntax(_ message: String) -> ShellError { ShellError(kind: .syntax(message)) }
    static let noPodcast = ShellError(kind: .noPodcast)
    static func feed(_ error: FeedError) -> ShellError { ShellError(kind: .feed(error)) }
    static func download(_ error: DownloadError) -> ShellError { ShellError(kind: .download(error)) }
    static func other(_ message: String) -> ShellError { ShellError(kind: .other(message)) }
    static func located(_ error: ShellError, at location: String) -> ShellError {
        ShellError(kind: .located(error, location: location))
    }

    /// A stable name for the kind of failure (for `--json`).
    public var code: String {
        switch kind {
        case .usage: "usage"
        case .unknownCommand: "unknown-command"
        case .syntax: "syntax"
        case .noPodcast: "no-podcast"
        case .feed(let error): error.code.description
        case .download(let error): error.code
        case .other: "failed"
        case .located(let error, _): error.code
        }
    }

    public var description: String {
        switch kind {
        case .usage(let problem?, let synopsis): "\(problem); usage: \(synopsis)"
        case .usage(nil, let synopsis): "usage: \(synopsis)"
        case .unknownCommand(let name, let suggestion?):
            "unknown command '\(name)'; did you mean '\(suggestion)'?"
        case .unknownCommand(let name, nil): "unknown command '\(name)'; type 'help' for the list"
        case .syntax(let message): message
        case .noPodcast: "no podcast loaded: run 'lookup' first"
        case .feed(let error): error.description
        case .download(let error): error.description
        case .other(let message): message
        case .located(let error, let location): "\(location): \(error.description)"
        }
    }
}

/// Runs an API call, turning its ``FeedKit/FeedError`` into a shell failure.
func feed<T>(_ call: () async throws(FeedError) -> T) async throws(ShellError) -> T {
    do {
        return try await call()
    } catch {
        throw .feed(error)
    }
}
