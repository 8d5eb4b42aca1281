import FeedKit
import Foundation

/// Everything the shell needs to know from flags and the environment.
public struct ShellConfiguration: Sendable {
    public var endpoints: Endpoints
    /// Where episodes are downloaded: `{dir}/{podcastID}/{episodeID}.{ext}`.
    public var downloadDirectory: URL
    /// Where line-editor history is kept (interactive mode only).
    public var historyFile: URL?
    public var http: HTTPSettings
    /// Continue a script after a failed command (and still exit 1).
    public var keepGoing: Bool

    public init(
        endpoints: Endpoints = .init(),
        downloadDirectory: URL,
        historyFile: URL? = nil,
        http: HTTPSettings = .init(),
        keepGoing: Bool = false
    ) {
        self.endpoints = endpoints
        self.downloadDirectory = downloadDirectory
        self.historyFile = historyFile
        self.http = http
        self.keepGoing = keepGoing
    }
}

/// How a run of feedsh ends, as its exit status.
public enum ExitStatus: Int32, Sendable {
    /// Every command succeeded.
    case success = 0
    /// A command failed.
    case failure = 1
    /// feedsh itself was called wrongly.
    case usage = 2
    /// Interrupted (SIGINT).
    case interrupted = 130
}
