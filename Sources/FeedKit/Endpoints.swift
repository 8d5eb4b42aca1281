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

    public static let defaultITunes = URL(string: "https://itunes.apple.com")!
    public static let defaultPosts = URL(string: "https://jsonplaceholder.typicode.com")!
    public static let defaultMet = URL(string: "https://collectionapi.metmuseum.org")!

    public init(itunes: URL = defaultITunes, posts: URL = defaultPosts, met: URL = defaultMet) {
        self.itunes = itunes
        self.posts = posts
        self.met = met
    }

    /// All three at one server (the fixture server serves every API).
    public init(allAt base: URL) {
        self.init(itunes: base, posts: base, met: base)
    }
}
