/// Something that names a library episode as the shell does: episode E (as
/// `episodes` numbers them) of subscription P.
public protocol EpisodeAddressed {
    /// P: the subscription's number.
    var podcastNumber: Int64 { get }
    /// E: the episode's number in its subscription's list.
    var episodeNumber: Int { get }
}

extension EpisodeAddressed {
    /// `P:E`.
    public var ref: String { "\(podcastNumber):\(episodeNumber)" }
}

extension SearchHit: EpisodeAddressed {}
extension QueueEntry: EpisodeAddressed {}
