import Downloads
import FeedKit
import Foundation

/// Everything the shell needs to know from flags and the environment.
public struct ShellConfiguration: Sendable {
    public var endpoints: Endpoints
    /// Where episodes are downloaded: `{dir}/{podcastID}/{episodeID}.{ext}`.
    public var downloadDirectory: URL
    /// Where fetched images are kept: `{dir}/images/` (`{downloads}/.cache` unless
    /// given).
    public var cacheDirectory: URL
    /// Where line-editor history is kept (interactive mode only).
    public var historyFile: URL?
    public var http: HTTPSettings
    /// Continue a script after a failed command (and still exit 1).
    public var keepGoing: Bool
    /// The download transport: `ahc` (AsyncHTTPClient) or `urlsession`.
    public var engine: DownloadEngine
    /// How many downloads run at once; the rest wait in a queue.
    public var maxConcurrent: Int

    public init(
        endpoints: Endpoints = .init(),
        downloadDirectory: URL,
        cacheDirectory: URL? = nil,
        historyFile: URL? = nil,
        http: HTTPSettings = .init(),
        keepGoing: Bool = false,
        engine: DownloadEngine = .ahc,
        maxConcurrent: Int = 3
    ) {
        self.endpoints = endpoints
        self.downloadDirectory = downloadDirectory
        // Without one, a folder of the download directory: never a place shared with
        // another configuration.
        self.cacheDirectory = cacheDirectory ?? downloadDirectory.appendingPathComponent(".cache")
        self.historyFile = historyFile
        self.http = http
        self.keepGoing = keepGoing
        self.engine = engine
        self.maxConcurrent = maxConcurrent
    }
}

/// Which transport downloads use (`--engine`).
public enum DownloadEngine: String, Sendable, CaseIterable {
    case ahc
    case urlsession
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
    /// Ended by SIGHUP (the terminal went away), after pausing downloads.
    case hangUp = 129
    /// Ended by SIGTERM, after pausing downloads.
    case terminated = 143
}
