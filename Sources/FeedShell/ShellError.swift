import Downloads
import FeedKit
import Library
import Playback
import ShellKit
import TerminalKit

/// Why a shell command failed, in words for the person at the terminal.
///
/// A struct over a private enum, like ``FeedKit/FeedError``; API and download
/// failures are carried as they are so that their URL, status and key path survive.
/// Text from outside (names, paths, titles) is sanitized when the error is made.
public struct ShellError: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case usage(UsageError)
        case unknownCommand(String, suggestion: String?)
        case syntax(String)
        /// `what` needs something loaded first: `lookup`, `search`, `tracks`.
        case nothingLoaded(what: String, run: String)
        case noPreview(song: String)
        case noArtwork(podcast: String)
        case noImage(objectID: Int)
        /// The server named one image type and sent something else.
        case notTheImage(url: String, contentType: String, format: String)
        case feed(FeedError)
        case download(DownloadError)
        case library(LibraryError)
        case playback(PlaybackError)
        /// The player ran but could not play the file or stream.
        case notPlayable(source: String, reason: String)
        case setting(SettingError)
        /// The background feedsh could not be started or reached.
        case background(String)
        /// A podcast whose directory entry names no feed.
        case noFeed(podcast: String)
        case subscribeFailed(url: String, reason: String, code: String?)
        case noSubscriptions
        case noSubscriptionLoaded
        case cancelled(what: String, note: String?)
        case superseded(what: String)
        case unreadableFile(path: String, reason: String)
        case unwritable(path: String, reason: String)
        case sourceCycle(path: String)
        case sourceTooDeep(limit: Int)
        case downloadsFailed(count: Int)
        case interrupted
        /// A failure in a sourced file, with its `file:line`.
        indirect case located(ShellError, location: String)
    }

    let kind: Kind

    /// A stable name for a kind of failure, for `--json`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        init(_ name: String) { description = name }

        public static let usage = Code("usage")
        public static let unknownCommand = Code("unknown-command")
        public static let syntax = Code("syntax")
        public static let noPodcast = Code("no-podcast")
        public static let nothingLoaded = Code("nothing-loaded")
        public static let noPreview = Code("no-preview")
        public static let noArtwork = Code("no-artwork")
        public static let noImage = Code("no-image")
        public static let notTheImage = Code("not-the-image")
        public static let notPlayable = Code("not-playable")
        public static let setting = Code("setting")
        public static let background = Code("background")
        public static let noFeed = Code("no-feed")
        public static let subscribeFailed = Code("subscribe-failed")
        public static let noSubscriptions = Code("no-subscriptions")
        public static let noSubscriptionLoaded = Code("no-subscription-loaded")
        public static let cancelled = Code("cancelled")
        public static let superseded = Code("superseded")
        public static let unreadableFile = Code("unreadable-file")
        public static let unwritable = Code("unwritable")
        public static let sourceCycle = Code("source-cycle")
        public static let sourceTooDeep = Code("source-too-deep")
        public static let downloadsFailed = Code("downloads-failed")
        public static let interrupted = Code("interrupted")
    }

    static func usage(_ error: UsageError) -> ShellError { ShellError(kind: .usage(error)) }
    static func usage(_ problem: String? = nil, synopsis: String) -> ShellError {
        ShellError(kind: .usage(UsageError(problem, synopsis: synopsis)))
    }
    static func unknownCommand(_ name: String, suggestion: String?) -> ShellError {
        ShellError(kind: .unknownCommand(TerminalText.line(name), suggestion: suggestion))
    }
    static func syntax(_ message: String) -> ShellError { ShellError(kind: .syntax(message)) }
    static let noPodcast = ShellError(kind: .nothingLoaded(what: "podcast", run: "lookup"))
    static let noSearchResults = ShellError(kind: .nothingLoaded(what: "search results", run: "search TERM"))
    static let noTracks = ShellError(kind: .nothingLoaded(what: "songs listed", run: "tracks TERM"))
    static func noPreview(song: String) -> ShellError { ShellError(kind: .noPreview(song: TerminalText.line(song))) }
    static func noArtwork(podcast: String) -> ShellError {
        ShellError(kind: .noArtwork(podcast: TerminalText.line(podcast)))
    }
    static func noImage(objectID: Int) -> ShellError { ShellError(kind: .noImage(objectID: objectID)) }
    static func notTheImage(url: String, contentType: String, format: String) -> ShellError {
        ShellError(
            kind: .notTheImage(url: TerminalText.line(url), contentType: TerminalText.line(contentType), format: format)
        )
    }
    static func feed(_ error: FeedError) -> ShellError { ShellError(kind: .feed(error)) }
    static func download(_ error: DownloadError) -> ShellError { ShellError(kind: .download(error)) }
    static func library(_ error: LibraryError) -> ShellError { ShellError(kind: .library(error)) }
    static func playback(_ error: PlaybackError) -> ShellError { ShellError(kind: .playback(error)) }
    static func notPlayable(_ source: String, reason: String) -> ShellError {
        ShellError(kind: .notPlayable(source: TerminalText.line(source), reason: TerminalText.line(reason)))
    }
    static func setting(_ error: SettingError) -> ShellError { ShellError(kind: .setting(error)) }
    static func background(_ message: String) -> ShellError { ShellError(kind: .background(message)) }
    static func noFeed(podcast: String) -> ShellError { ShellError(kind: .noFeed(podcast: TerminalText.line(podcast))) }
    /// `code`: the feed's own error code, which `--json` gives instead of
    /// `subscribe-failed` when there is one.
    static func subscribeFailed(url: String, reason: String, code: String? = nil) -> ShellError {
        ShellError(kind: .subscribeFailed(url: TerminalText.line(url), reason: TerminalText.line(reason), code: code))
    }
    static let noSubscriptions = ShellError(kind: .noSubscriptions)
    static let noSubscriptionLoaded = ShellError(kind: .noSubscriptionLoaded)
    static func cancelled(_ what: String, note: String? = nil) -> ShellError {
        ShellError(kind: .cancelled(what: what, note: note))
    }
    static func superseded(_ what: String) -> ShellError { ShellError(kind: .superseded(what: what)) }
    static func unreadableFile(_ path: String, reason: String) -> ShellError {
        ShellError(kind: .unreadableFile(path: TerminalText.line(path), reason: reason))
    }
    static func unwritable(_ path: String, reason: String) -> ShellError {
        ShellError(kind: .unwritable(path: TerminalText.line(path), reason: reason))
    }
    static func sourceCycle(_ path: String) -> ShellError {
        ShellError(kind: .sourceCycle(path: TerminalText.line(path)))
    }
    static func sourceTooDeep(limit: Int) -> ShellError { ShellError(kind: .sourceTooDeep(limit: limit)) }
    static func downloadsFailed(_ count: Int) -> ShellError { ShellError(kind: .downloadsFailed(count: count)) }
    static let interrupted = ShellError(kind: .interrupted)
    static func located(_ error: ShellError, at location: String) -> ShellError {
        ShellError(kind: .located(error, location: location))
    }

    /// The kind of failure; a feed or download failure gives its own code.
    public var code: String {
        switch kind {
        case .usage: Code.usage.description
        case .unknownCommand: Code.unknownCommand.description
        case .syntax: Code.syntax.description
        case .nothingLoaded(let what, _): (what == "podcast" ? Code.noPodcast : Code.nothingLoaded).description
        case .noPreview: Code.noPreview.description
        case .noArtwork: Code.noArtwork.description
        case .noImage: Code.noImage.description
        case .notTheImage: Code.notTheImage.description
        case .feed(let error): error.code.description
        case .download(let error): error.code.description
        case .library(let error): error.code.description
        case .playback(let error): error.code.description
        case .notPlayable: Code.notPlayable.description
        case .setting: Code.setting.description
        case .background: Code.background.description
        case .noFeed: Code.noFeed.description
        case .subscribeFailed(_, _, let code): code ?? Code.subscribeFailed.description
        case .noSubscriptions: Code.noSubscriptions.description
        case .noSubscriptionLoaded: Code.noSubscriptionLoaded.description
        case .cancelled: Code.cancelled.description
        case .superseded: Code.superseded.description
        case .unreadableFile: Code.unreadableFile.description
        case .unwritable: Code.unwritable.description
        case .sourceCycle: Code.sourceCycle.description
        case .sourceTooDeep: Code.sourceTooDeep.description
        case .downloadsFailed: Code.downloadsFailed.description
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
        case .nothingLoaded(let what, let run): "no \(what == "podcast" ? "podcast loaded" : what): run '\(run)' first"
        case .noPreview(let song): "\(song) has no preview"
        case .noArtwork(let podcast): "\(podcast) has no artwork"
        case .noImage(let id): "Met object \(id) has no primary image"
        case .notTheImage(let url, let contentType, let format):
            "\(url) sent \(contentType) but the body is not a \(format) image"
        case .feed(let error): error.description
        case .download(let error): error.description
        case .library(let error): error.description
        case .playback(let error): error.description
        case .notPlayable(let source, let reason): "cannot play \(source): \(reason)"
        case .setting(let error): error.description
        case .background(let message): message
        case .noFeed(let podcast): "\(podcast) has no feed URL in Apple's directory"
        case .subscribeFailed(let url, let reason, _): "cannot subscribe to \(url): \(reason)"
        case .noSubscriptions: "no subscriptions: 'subscribe ID|URL' or 'import FILE' adds some"
        case .noSubscriptionLoaded: "no subscription loaded: run 'podcast N' (see 'podcasts') or 'subscribe' first"
        case .cancelled(let what, let note): "\(what) cancelled" + (note.map { "; \($0)" } ?? "")
        case .superseded(let what): "\(what) cancelled by a newer one"
        case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
        case .unwritable(let path, let reason): "cannot write to \(path): \(reason)"
        case .sourceCycle(let path): "\(path) is already being sourced (a cycle)"
        case .sourceTooDeep(let limit): "sources nested more than \(limit) deep"
        case .downloadsFailed(let count): "\(count) \(count == 1 ? "download" : "downloads") failed"
        case .interrupted: "interrupted"
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
