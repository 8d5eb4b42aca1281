import Foundation

/// A podcast and its latest episodes, as the iTunes lookup API describes them.
///
/// Decodes a whole lookup response (`{"resultCount": N, "results": [...]}`): the first
/// result is the podcast, the rest are episodes, in the order the API sent them. A
/// malformed episode is skipped and recorded in ``warnings``; a malformed podcast
/// record fails with a `DecodingError` whose path names the key.
public struct Podcast: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let title: String
    public let artist: String?
    public let artworkURL: URL?
    public let feedURL: URL?
    public let genres: [String]
    /// How many episodes the podcast has in all (the lookup returns the latest few).
    public let episodeCount: Int?
    /// Newest first: in memory, or read from the library a page at a time.
    public let episodes: EpisodeList
    /// Results that were skipped because they did not decode.
    public let warnings: [DecodingWarning]

    /// A podcast; its episodes in memory (`EpisodeList(array)`), or read from a
    /// library's source.
    public init(
        id: Int64,
        title: String,
        artist: String? = nil,
        artworkURL: URL? = nil,
        feedURL: URL? = nil,
        genres: [String] = [],
        episodeCount: Int? = nil,
        episodes: EpisodeList = [],
        warnings: [DecodingWarning] = []
    ) {
        self.id = id
        self.title = title
        self.artist = artist
        self.artworkURL = artworkURL
        self.feedURL = feedURL
        self.genres = genres
        self.episodeCount = episodeCount
        self.episodes = episodes
        self.warnings = warnings
    }

    /// The podcast with at most its first `limit` episodes (a server may send more
    /// than it was asked for).
    public func keeping(_ limit: Int) -> Podcast {
        guard episodes.count > limit else { return self }
        return Podcast(
            id: id,
            title: title,
            artist: artist,
            artworkURL: artworkURL,
            feedURL: feedURL,
            genres: genres,
            episodeCount: episodeCount,
            episodes: EpisodeList(Array(episodes.prefix(max(0, limit)))),
            warnings: warnings
        )
    }
}

/// A lookup that found nothing (`resultCount: 0`).
public struct EmptyLookupResponse: Error, Sendable {}

extension Podcast: Decodable {
    private enum ResponseKeys: String, CodingKey {
        case results
    }

    private enum Keys: String, CodingKey {
        case collectionId, collectionName, artistName, artworkUrl600, artworkUrl100, feedUrl
        case genres, trackCount
    }

    public init(from decoder: any Decoder) throws {
        let response = try decoder.container(keyedBy: ResponseKeys.self)
        var results = try response.nestedUnkeyedContainer(forKey: .results)
        if results.isAtEnd { throw EmptyLookupResponse() }

        let record = try results.nestedContainer(keyedBy: Keys.self)
        id = try record.decode(Int64.self, forKey: .collectionId)
        title = try record.decode(String.self, forKey: .collectionName)
        artist = try record.decodeIfPresent(String.self, forKey: .artistName)
        artworkURL =
            try record.decodeURLIfPresent(forKey: .artworkUrl600)
            ?? record.decodeURLIfPresent(forKey: .artworkUrl100)
        feedURL = try? record.decodeURLIfPresent(forKey: .feedUrl)
        genres = (try? record.decodeIfPresent(GenreList.self, forKey: .genres))?.names ?? []
        episodeCount = try? record.decodeIfPresent(Int.self, forKey: .trackCount)

        var episodes: [Episode] = []
        var warnings: [DecodingWarning] = []
        // Downloads are keyed by trackId: a second episode with the same one would
        // share the first one's file and progress, so it is skipped and said.
        var seen: [Int64: Int] = [:]
        while !results.isAtEnd {
            let index = results.currentIndex
            switch try results.decode(Lenient<Episode>.self).result {
            case .success(let episode):
                if let first = seen[episode.id] {
                    warnings.append(
                        .init(
                            element: "results[\(index)]",
                            keyPath: "results[\(index)].trackId",
                            detail: "trackId \(episode.id) repeats results[\(first)]",
                            subject: "episode \(index)",
                            reason: "its trackId \(episode.id) is the same as episode \(first)'s"
                        )
                    )
                    continue
                }
                seen[episode.id] = index
                episodes.append(episode)
            case .failure(let error as DecodingError):
                let failure = DecodingFailure(error)
                warnings.append(
                    .init(
                        element: "results[\(index)]",
                        keyPath: failure.keyPath,
                        detail: failure.detail,
                        subject: "episode \(index)",
                        reason: failure.reason
                    )
                )
            case .failure(let error):
                throw error
            }
        }
        self.episodes = EpisodeList(episodes)
        self.warnings = warnings
    }
}

/// `genres` is `["Comedy", ...]` on a podcast and `[{"name": "Comedy", "id": "1303"}]`
/// on an episode; accept both.
struct GenreList: Decodable {
    let names: [String]

    private struct Named: Decodable { let name: String }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let names = try? container.decode([String].self) {
            self.names = names
        } else {
            self.names = try container.decode([Named].self).map(\.name)
        }
    }
}
