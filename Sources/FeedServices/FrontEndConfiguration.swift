import Foundation
import HTTPSupport

/// The XDG base directories feedsh uses.
public struct XDGPaths: Sendable {
    public let downloads: URL
    public let cache: URL
    public let history: URL
    public let library: URL

    public init(environment: [String: String]) {
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        func base(_ name: String, _ fallback: String) -> URL {
            if let value = environment[name], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
            return home.appendingPathComponent(fallback)
        }
        downloads = base("XDG_DATA_HOME", ".local/share").appendingPathComponent("feedsh/downloads")
        library = base("XDG_DATA_HOME", ".local/share").appendingPathComponent("feedsh/library.sqlite")
        history = base("XDG_STATE_HOME", ".local/state").appendingPathComponent("feedsh/history")
        cache = base("XDG_CACHE_HOME", ".cache").appendingPathComponent("feedsh")
    }
}

extension Configuration {
    /// The configuration of a front end over the library (`serve`, `mcp`): the
    /// shell's library and download folder from `library` and `downloadDir`, else
    /// `FEEDSH_LIBRARY` and `FEEDSH_DOWNLOAD_DIR`, else the XDG defaults; the cache
    /// folder, the proxies and a private feed's password from the environment.
    public static func frontEnd(
        library: String? = nil,
        downloadDir: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ProxyError) -> Configuration {
        func given(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let paths = XDGPaths(environment: environment)
        return Configuration(
            downloadDirectory: URL(
                fileURLWithPath: downloadDir ?? given("FEEDSH_DOWNLOAD_DIR") ?? paths.downloads.path
            ),
            cacheDirectory: URL(fileURLWithPath: given("FEEDSH_CACHE_DIR") ?? paths.cache.path),
            libraryFile: URL(fileURLWithPath: library ?? given("FEEDSH_LIBRARY") ?? paths.library.path),
            proxies: try ProxyEnvironment(environment: environment),
            feedPassword: given("FEEDSH_FEED_PASSWORD")
        )
    }
}
