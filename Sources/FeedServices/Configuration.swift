import Downloads
import FeedKit
import Foundation
import HTTPSupport
import Library
import WebBasics

/// Everything the shell needs to know from flags and the environment.
public struct Configuration: Sendable {
    public var endpoints: Endpoints
    /// Where episodes are downloaded: `{dir}/{podcastID}/{episodeID}.{ext}`.
    public var downloadDirectory: URL
    /// Where fetched images are kept: `{dir}/images/` (`{downloads}/.cache` unless
    /// given).
    public var cacheDirectory: URL
    /// The podcast library (SQLite): `--library`, `FEEDSH_LIBRARY`, else
    /// `$XDG_DATA_HOME/feedsh/library.sqlite`.
    public var libraryFile: URL
    /// One connection to the library for a script, a pool for what stays up
    /// (``Library/Connections``); a pool unless the composition root says.
    public var libraryConnections: Library.Connections = .pool
    /// Where line-editor history is kept (interactive mode only).
    public var historyFile: URL?
    public var http: HTTPSettings
    /// Continue a script after a failed command (and still exit 1).
    public var keepGoing: Bool
    /// The download transport: `ahc` (AsyncHTTPClient) or `urlsession`.
    public var engine: DownloadEngine
    /// How many downloads run at once; the rest wait in a queue.
    public var maxConcurrent: Int
    /// `maxConcurrent` was given (`--max-concurrent`); otherwise the library's
    /// `max-concurrent` setting applies when there is one.
    public var maxConcurrentGiven: Bool
    /// The largest file a download may be (`--max-filesize`); nil: the `max-size`
    /// setting, else 4 GiB.
    public var maxFileSize: Int64?
    /// The player from `FEEDSH_PLAYER`, which wins over the `player` setting.
    public var player: String?
    /// At the end of a script, hand running downloads to the background feedsh
    /// instead of waiting for them (`--detach`).
    public var detach: Bool
    /// `--demo`: the fixture server and the demo's folder end with this process,
    /// so nothing can be handed to a background feedsh.
    public var demo: Bool
    /// The pager for results taller than the screen at the prompt (`less -FRX`
    /// unless `$PAGER` says otherwise); nil for none (`--no-pager`).
    public var pager: String?
    /// The Podcast Index key and secret from `FEEDSH_PODCASTINDEX_KEY` and
    /// `FEEDSH_PODCASTINDEX_SECRET` (or `--demo`'s), which win over the settings.
    public var podcastIndexKey: String?
    public var podcastIndexSecret: String?
    /// The proxies of the environment (`http_proxy`...), by curl's rules.
    public var proxies: ProxyEnvironment
    /// The cap on the total download rate, bytes a second (`--limit-rate`); nil:
    /// the `rate-limit` setting, else none.
    public var rateLimit: Int64?
    /// The password for `subscribe URL --user NAME` (`FEEDSH_FEED_PASSWORD`);
    /// without it, feedsh asks at the terminal.
    public var feedPassword: String?
    /// The password for `sync login` (`FEEDSH_SYNC_PASSWORD`); without it, feedsh
    /// asks at the terminal.
    public var syncPassword: String?

    public init(
        endpoints: Endpoints = .init(),
        downloadDirectory: URL,
        cacheDirectory: URL? = nil,
        libraryFile: URL? = nil,
        historyFile: URL? = nil,
        http: HTTPSettings = .init(),
        keepGoing: Bool = false,
        engine: DownloadEngine = .ahc,
        maxConcurrent: Int = 3,
        maxConcurrentGiven: Bool = true,
        maxFileSize: Int64? = nil,
        player: String? = nil,
        detach: Bool = false,
        demo: Bool = false,
        pager: String? = nil,
        podcastIndexKey: String? = nil,
        podcastIndexSecret: String? = nil,
        proxies: ProxyEnvironment = .direct,
        rateLimit: Int64? = nil,
        feedPassword: String? = nil,
        syncPassword: String? = nil
    ) {
        self.endpoints = endpoints
        self.downloadDirectory = downloadDirectory
        // Without one, a folder of the download directory: never a place shared with
        // another configuration.
        self.cacheDirectory = cacheDirectory ?? downloadDirectory.appendingPathComponent(".cache")
        // Without one, beside the downloads: never a library shared with another
        // configuration (tests get their own).
        self.libraryFile = libraryFile ?? downloadDirectory.appendingPathComponent(".library.sqlite")
        self.historyFile = historyFile
        self.http = http
        self.keepGoing = keepGoing
        self.engine = engine
        self.maxConcurrent = maxConcurrent
        self.maxConcurrentGiven = maxConcurrentGiven
        self.maxFileSize = maxFileSize
        self.player = player
        self.detach = detach
        self.demo = demo
        self.pager = pager
        self.podcastIndexKey = podcastIndexKey
        self.podcastIndexSecret = podcastIndexSecret
        self.proxies = proxies
        self.rateLimit = rateLimit
        self.feedPassword = feedPassword
        self.syncPassword = syncPassword
    }
}

/// Which transport downloads use (`--engine`).
public enum DownloadEngine: String, Sendable, CaseIterable {
    case ahc
    case urlsession
}

extension Configuration {
    /// What flags and the environment give, which wins over what `set` stored:
    /// each as the text `set` would store, and the flag or variable it came from.
    /// The one place that says which settings a flag or variable overrides.
    package var settingOverrides: [Setting: (value: String, source: String)] {
        var given: [Setting: (value: String, source: String)] = [:]
        given[.player] = player.map { ($0, "FEEDSH_PLAYER") }
        given[.maxConcurrent] = maxConcurrentGiven ? (String(maxConcurrent), "--max-concurrent") : nil
        given[.maxSize] = maxFileSize.map { (ByteSize.format($0), "--max-filesize") }
        given[.pager] = pager == nil ? ("none", "--no-pager") : nil
        given[.podcastIndexKey] = podcastIndexKey.map { ($0, "FEEDSH_PODCASTINDEX_KEY") }
        given[.podcastIndexSecret] = podcastIndexSecret.map { ($0, "FEEDSH_PODCASTINDEX_SECRET") }
        given[.rateLimit] = rateLimit.map { (ByteSize.format($0), "--limit-rate") }
        return given
    }
}
