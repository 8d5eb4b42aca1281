import Foundation

extension URL {
    /// `text` as an absolute http or https URL with a host, or nil: what feedsh accepts
    /// for API roots and images.
    public init?(httpString text: String) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else { return nil }
        self = url
    }
}

/// Where each API lives. Defaults are the public services; `--demo` and the tests
/// point them at the fixture server.
public struct Endpoints: Sendable, Equatable {
    public var itunes: URL
    public var posts: URL
    public var met: URL
    /// The Podcast Index API root, `/api/1.0` included.
    public var podcastIndex: URL

    public static let defaultITunes = URL(string: "https://itunes.apple.com")!
    public static let defaultPosts = URL(string: "https://jsonplaceholder.typicode.com")!
    public static let defaultMet = URL(string: "https://collectionapi.metmuseum.org")!
    public static let defaultPodcastIndex = URL(string: "https://api.podcastindex.org/api/1.0")!

    public init(
        itunes: URL = defaultITunes,
        posts: URL = defaultPosts,
        met: URL = defaultMet,
        podcastIndex: URL = defaultPodcastIndex
    ) {
        self.itunes = itunes
        self.posts = posts
        self.met = met
        self.podcastIndex = podcastIndex
    }

    /// Every API at one server (the fixture server serves them all, the Index under
    /// `/api/1.0` as the real one).
    public init(allAt base: URL) {
        self.init(
            itunes: base,
            posts: base,
            met: base,
            podcastIndex: base.appendingPathComponent("api").appendingPathComponent("1.0")
        )
    }
}
