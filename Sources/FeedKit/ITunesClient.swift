import Foundation

/// Apple's iTunes Search API: podcast lookups (and, later, searches).
public struct ITunesClient: Sendable {
    /// The API root, `https://itunes.apple.com` unless configured.
    public let baseURL: URL
    let http: any HTTPFetching

    public init(baseURL: URL, http: any HTTPFetching) {
        self.baseURL = baseURL
        self.http = http
    }

    /// `{base}/lookup?id=ID&media=podcast&entity=podcastEpisode&limit=N`.
    public func lookupURL(id: Int64, limit: Int) -> URL {
        endpoint(
            "lookup",
            query: [
                URLQueryItem(name: "id", value: String(id)),
                URLQueryItem(name: "media", value: "podcast"),
                URLQueryItem(name: "entity", value: "podcastEpisode"),
                URLQueryItem(name: "limit", value: String(limit)),
            ]
        )
    }

    /// Loads a podcast and its latest `limit` episodes.
    public func lookup(id: Int64, limit: Int) async throws(FeedError) -> Podcast {
        let url = lookupURL(id: id, limit: limit)
        let body = try await http.getJSON(url)
        do {
            return try JSONDecoder().decode(Podcast.self, from: body.data).keeping(limit)
        } catch is EmptyLookupResponse {
            throw .notFound("no podcast with id \(id)")
        } catch {
            throw FeedError(decoding: error, url: url, byteCount: body.data.count)
        }
    }

    func endpoint(_ name: String, query: [URLQueryItem]) -> URL {
        // appendingPathComponent keeps any path prefix in the base URL.
        var components = URLComponents(
            url: baseURL.appendingPathComponent(name),
            resolvingAgainstBaseURL: false
        )!
        components.queryItems = query
        return components.url!
    }
}

extension FeedError {
    /// Wraps an error from `JSONDecoder`: syntax errors name the byte count, shape
    /// errors the key path.
    init(decoding error: any Error, url: URL, byteCount: Int) {
        guard let error = error as? DecodingError else {
            self = .decoding(url: url, keyPath: "(top level)", detail: String(describing: error))
            return
        }
        if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
            let underlying = (context.underlyingError as? NSError)?.userInfo["NSDebugDescription"] as? String
            self = .invalidJSON(url: url, detail: underlying ?? context.debugDescription, byteCount: byteCount)
            return
        }
        let failure = DecodingFailure(error)
        self = .decoding(url: url, keyPath: failure.keyPath, detail: failure.detail)
    }
}

/// What `lookup` accepts: a numeric podcast ID, `id123`, or an Apple Podcasts URL
/// such as `https://podcasts.apple.com/us/podcast/name/id1386867488`.
public enum PodcastReference {
    public static func id(from text: String) -> Int64? {
        if let id = Int64(text), id > 0 { return id }
        if text.hasPrefix("id"), let id = Int64(text.dropFirst(2)), id > 0 { return id }
        guard let url = URL(string: text), let host = url.host?.lowercased(),
            host == "podcasts.apple.com" || host == "itunes.apple.com"
        else { return nil }
        if let item = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: {
            $0.name == "id"
        }), let value = item.value, let id = Int64(value) {
            return id
        }
        for component in url.pathComponents.reversed() where component.hasPrefix("id") {
            if let id = Int64(component.dropFirst(2)), id > 0 { return id }
        }
        return nil
    }
}
