import Foundation

/// A song from the iTunes music search, with its 30-second preview when there is one.
public struct Track: Decodable, Sendable, Hashable, Identifiable {
    public let id: Int64
    public let title: String
    public let artist: String
    public let album: String?
    public let duration: Duration?
    /// The preview clip (`previewUrl`), absent for some songs.
    public let previewURL: URL?

    private enum Keys: String, CodingKey {
        case trackId, trackName, artistName, collectionName, trackTimeMillis, previewUrl
    }

    public init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Keys.self)
        id = try record.decode(Int64.self, forKey: .trackId)
        title = try record.decode(String.self, forKey: .trackName)
        artist = try record.decodeIfPresent(String.self, forKey: .artistName) ?? ""
        album = try record.decodeIfPresent(String.self, forKey: .collectionName)
        duration = try record.decodeIfPresent(Double.self, forKey: .trackTimeMillis).flatMap(Duration.plausible)
        previewURL = try record.decodeURLIfPresent(forKey: .previewUrl)
    }

    /// The preview's file extension from its URL (`m4a` for Apple's
    /// `….plus.aac.p.m4a`), `m4a` when the URL has none.
    public var previewExtension: String {
        let ext = previewURL?.pathExtension.lowercased() ?? ""
        return ext.isEmpty || ext.count > 5 || ext == "part" || !ext.allSatisfy { $0.isLetter || $0.isNumber }
            ? "m4a" : ext
    }
}

extension ITunesClient {
    /// Songs matching `term` (`/search?media=music&entity=song`); empty when none.
    public func searchTracks(term: String, limit: Int) async throws(FeedError) -> [Track] {
        let url = searchURL(term: term, media: "music", entity: "song", limit: limit)
        return try await http.decode(SearchResponse<Track>.self, from: url).results
    }
}
