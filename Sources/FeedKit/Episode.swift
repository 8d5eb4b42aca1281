import Foundation
import HTTPSupport

/// One podcast episode from an iTunes lookup.
public struct Episode: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let podcastID: Int64
    public let title: String
    public let releaseDate: Date?
    /// The running time; `trackTimeMillis` is missing from some records.
    public let duration: Duration?
    /// Where the audio is (`episodeUrl`).
    public let audioURL: URL
    public let description: String?
    public let artworkURL: URL?
    /// The GUID of the episode in its feed (`episodeGuid`), which matches library
    /// episodes to Apple's track IDs.
    public let guid: String?
    /// The file's length as the feed declares it (an enclosure's `length`), when
    /// it does.
    public let declaredLength: Int64?

    public init(
        id: Int64,
        podcastID: Int64,
        title: String,
        releaseDate: Date? = nil,
        duration: Duration? = nil,
        audioURL: URL,
        description: String? = nil,
        artworkURL: URL? = nil,
        guid: String? = nil,
        declaredLength: Int64? = nil
    ) {
        self.id = id
        self.podcastID = podcastID
        self.title = title
        self.releaseDate = releaseDate
        self.duration = duration
        self.audioURL = audioURL
        self.description = description
        self.artworkURL = artworkURL
        self.guid = guid
        self.declaredLength = declaredLength
    }

    /// The same episode with another description.
    public func with(description: String?) -> Episode {
        Episode(
            id: id,
            podcastID: podcastID,
            title: title,
            releaseDate: releaseDate,
            duration: duration,
            audioURL: audioURL,
            description: description,
            artworkURL: artworkURL,
            guid: guid,
            declaredLength: declaredLength
        )
    }

    /// The file extension for the download: from the URL's path, `mp3` when it has
    /// none, or when it is `part`: a finished `N.part` would read as an unfinished
    /// download to every later start, and `serve` would leave it out.
    public var fileExtension: String {
        let ext = audioURL.pathExtension.lowercased()
        let usable =
            !ext.isEmpty && ext.count <= 5 && ext != "part"
            && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return usable ? ext : "mp3"
    }
}

extension Episode: Decodable {
    private enum Keys: String, CodingKey {
        case trackId, collectionId, trackName, releaseDate, trackTimeMillis, episodeUrl, description
        case artworkUrl600, artworkUrl160, episodeGuid
    }

    public init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Keys.self)
        id = try record.decode(Int64.self, forKey: .trackId)
        podcastID = try record.decode(Int64.self, forKey: .collectionId)
        title = try record.decode(String.self, forKey: .trackName)
        audioURL = try record.decodeURL(forKey: .episodeUrl)
        // A `file:` or `javascript:` URL would be opened by the player or retried by
        // `get`: such an episode is left out (and said, as any undecodable one).
        guard NetworkFailure.isFetchable(audioURL) else {
            throw DecodingError.dataCorruptedError(
                forKey: .episodeUrl,
                in: record,
                debugDescription: "'\(audioURL.absoluteString)' is not an http or https URL"
            )
        }
        releaseDate = try record.decodeISO8601IfPresent(forKey: .releaseDate)
        duration = try record.decodeIfPresent(Double.self, forKey: .trackTimeMillis).flatMap(Duration.plausible)
        description = try record.decodeIfPresent(String.self, forKey: .description)
        artworkURL =
            try record.decodeURLIfPresent(forKey: .artworkUrl600)
            ?? record.decodeURLIfPresent(forKey: .artworkUrl160)
        guid = try? record.decodeIfPresent(String.self, forKey: .episodeGuid)
        declaredLength = nil
    }
}
