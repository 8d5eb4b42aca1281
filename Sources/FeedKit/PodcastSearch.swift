import Foundation

/// A podcast found by the iTunes search API.
public struct PodcastSearchResult: Decodable, Sendable, Hashable, Identifiable {
    public let id: Int64
    public let title: String
    public let artist: String?
    /// Episodes in all (`trackCount`).
    public let episodeCount: Int?
    public let genre: String?

    private enum Keys: String, CodingKey {
        case collectionId, collectionName, artistName, trackCount, primaryGenreName
    }

    public init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Keys.self)
        id = try record.decode(Int64.self, forKey: .collectionId)
        title = try record.decode(String.self, forKey: .collectionName)
        artist = try record.decodeIfPresent(String.self, forKey: .artistName)
        episodeCount = try? record.decodeIfPresent(Int.self, forKey: .trackCount)
        genre = try? record.decodeIfPresent(String.self, forKey: .primaryGenreName)
    }
}

/// `{"resultCount": N, "results": [...]}` where each result decodes on its own: one
/// bad record is skipped, not fatal.
struct SearchResponse<Result: Decodable>: Decodable {
    let results: [Result]
    let skipped: Int

    private enum Keys: String, CodingKey { case results }

    init(from decoder: any Decoder) throws {
        var container = try decoder.container(keyedBy: Keys.self).nestedUnkeyedContainer(forKey: .results)
        var results: [Result] = []
        var skipped = 0
        while !container.isAtEnd {
            switch try container.decode(Lenient<Result>.self).result {
            case .success(let result): results.append(result)
            case .failure: skipped += 1
            }
        }
        self.results = results
        self.skipped = skipped
    }
}

extension ITunesClient {
    /// `{base}/search?media=podcast&term=TERM&limit=N`.
    public func searchURL(term: String, media: String, entity: String? = nil, limit: Int) -> URL {
        var query = [
            URLQueryItem(name: "media", value: media),
            URLQueryItem(name: "term", value: term),
            URLQueryItem(name: "limit", value: String(limit)),
        ]
        if let entity { query.insert(URLQueryItem(name: "entity", value: entity), at: 1) }
        return endpoint("search", query: query)
    }

    /// Podcasts matching `term`; an empty array when there are none.
    public func searchPodcasts(term: String, limit: Int) async throws(FeedError) -> [PodcastSearchResult] {
        let url = searchURL(term: term, media: "podcast", limit: limit)
        return try await http.decode(SearchResponse<PodcastSearchResult>.self, from: url).results
    }
}
