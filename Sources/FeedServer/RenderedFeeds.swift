import Foundation
import HTTPSupport
import NIOCore
import Synchronization

/// What a feed is made of, as it stands: the same version gives the same feed
/// (for the same address), so a feed is rendered once for each version.
public struct FeedVersion: Sendable, Hashable {
    /// ``ChangeWatch``'s count: any change to the library or the download folder.
    public var changes: UInt64
    /// The minute, for a feed that depends on the time too (a playlist's `since:7d`).
    public var minute: Int64?

    public init(changes: UInt64, minute: Int64? = nil) {
        self.changes = changes
        self.minute = minute
    }
}

/// A body as served: its bytes, strong ETag (a hash of them) and Last-Modified
/// (when that body was first served).
struct RenderedBody: Sendable {
    let body: ByteBuffer
    let tag: String
    let modified: Date
    /// `modified` as the header gives it, formatted once.
    let lastModified: String

    init(body: ByteBuffer, tag: String, modified: Date) {
        self.body = body
        self.tag = tag
        self.modified = modified
        lastModified = HTTPDate.format(modified)
    }

    /// `text` as served as `resource` (what was asked for, however spelt).
    static func make(_ text: String, resource: String) async -> RenderedBody {
        let tag = "\"" + String(FeedServer.fnv1a(text), radix: 16) + "\""
        let modified = await FirstSeen.shared.date(of: resource, tag: tag)
        return RenderedBody(body: ByteBuffer(string: text), tag: tag, modified: modified)
    }
}

/// Each feed as last rendered, with the version it was rendered from: a request
/// whose version matches is answered from it, without reading the library or
/// writing XML (a thousand-episode feed took 100 ms a request, and a hundred
/// polling apps kept both cores busy). Requests that come while a version is
/// being rendered wait for that one render.
final class RenderedFeeds: Sendable {
    private enum Entry {
        case rendered(FeedVersion, RenderedBody?)
        case rendering(FeedVersion, Task<RenderedBody?, any Error>)
    }

    /// At most this many feeds are kept; a key is a feed at an address, which a
    /// client chooses (its Host header), so past it every kept one is dropped.
    static let limit = 64

    private let entries = Mutex<[String: Entry]>([:])

    /// The feed `key` names at `version`, rendered by `render` unless it was at
    /// that version (nil: the feed does not exist). Without a version it is
    /// rendered each time and not kept.
    func feed(
        _ key: String,
        version: FeedVersion?,
        resource: @autoclosure @escaping @Sendable () -> String,
        render: @escaping @Sendable () async throws -> String?
    ) async throws -> RenderedBody? {
        guard let version else {
            guard let text = try await render() else { return nil }
            return await RenderedBody.make(text, resource: resource())
        }
        enum Found {
            case kept(RenderedBody?)
            case waiting(Task<RenderedBody?, any Error>)
        }
        let found: Found = entries.withLock { entries in
            switch entries[key] {
            case .rendered(version, let body)?:
                return .kept(body)
            case .rendering(version, let task)?:
                return .waiting(task)
            default:
                if entries.count >= Self.limit {
                    entries = entries.filter { if case .rendering = $0.value { true } else { false } }
                }
                // Not cancelled with the request that started it: others wait on it.
                let task = Task<RenderedBody?, any Error> {
                    guard let text = try await render() else { return nil }
                    return await RenderedBody.make(text, resource: resource())
                }
                entries[key] = .rendering(version, task)
                return .waiting(task)
            }
        }
        let task: Task<RenderedBody?, any Error>
        switch found {
        case .kept(let body): return body
        case .waiting(let rendering): task = rendering
        }
        do {
            let body = try await task.value
            entries.withLock { entries in
                if case .rendering(version, _)? = entries[key] { entries[key] = .rendered(version, body) }
            }
            return body
        } catch {
            entries.withLock { entries in
                if case .rendering(version, _)? = entries[key] { entries[key] = nil }
            }
            throw error
        }
    }
}
