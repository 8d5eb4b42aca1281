/// What the download engine knows a download by: an episode's key, a song's
/// preview, an image. Typed, so that no other text (a title, a typed `3`) passes
/// for one; written as its text in JSON, on the control socket and in messages.
/// A literal (`"a"`) is one, for tests and fixed names.
public struct DownloadID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// An episode's download: its key (Apple's trackId, or a key of its GUID)
    /// as its file is named, `feed-{hex}` for a feed-only episode, so that the
    /// id `downloads` and `show` give is the name of the file on disk.
    public init(episode key: Int64) {
        rawValue = DownloadLayout.name(key)
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

extension DownloadID {
    /// In the order of their text, for lists that must not change order between
    /// runs.
    public static func < (lhs: DownloadID, rhs: DownloadID) -> Bool { lhs.rawValue < rhs.rawValue }
}
