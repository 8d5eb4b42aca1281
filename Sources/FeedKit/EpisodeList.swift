/// Where a long list of episodes is read from a few at a time: a subscription of
/// 200 000 episodes in the library is never held whole.
public protocol EpisodeSource: AnyObject, Sendable {
    /// How many episodes the list has.
    var count: Int { get }
    /// The episode at `position` (0 = newest). The source keeps the few pages read
    /// last; reading one must not fail the caller (a source says what went wrong
    /// in the episode it gives).
    func episode(at position: Int) -> Episode
}

/// A podcast's episodes, newest first: in memory (what an API answered), or read
/// from an ``EpisodeSource`` a page at a time.
public struct EpisodeList: RandomAccessCollection, Sendable, Hashable, ExpressibleByArrayLiteral {
    private enum Storage: Sendable {
        case memory([Episode])
        case source(any EpisodeSource, count: Int)
    }

    private let storage: Storage

    public init(_ episodes: [Episode]) {
        storage = .memory(episodes)
    }

    public init(arrayLiteral elements: Episode...) {
        storage = .memory(elements)
    }

    /// The episodes `source` gives, as many as it has now.
    public init(source: any EpisodeSource) {
        storage = .source(source, count: source.count)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .memory(let episodes): episodes.count
        case .source(_, let count): count
        }
    }

    public subscript(position: Int) -> Episode {
        switch storage {
        case .memory(let episodes):
            return episodes[position]
        case .source(let source, let count):
            precondition((0..<count).contains(position), "episode \(position) of \(count)")
            return source.episode(at: position)
        }
    }

    /// The source behind the list, when it is read from one.
    public var source: (any EpisodeSource)? {
        if case .source(let source, _) = storage { return source }
        return nil
    }

    public static func == (lhs: EpisodeList, rhs: EpisodeList) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.memory(let left), .memory(let right)): left == right
        case (.source(let left, let leftCount), .source(let right, let rightCount)):
            left === right && leftCount == rightCount
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .memory(let episodes): hasher.combine(episodes)
        case .source(let source, let count):
            hasher.combine(ObjectIdentifier(source))
            hasher.combine(count)
        }
    }
}
