import Downloads
import FeedKit
import Foundation

/// Where episodes' chapters are kept once read: `{cache-dir}/chapters/{key}.json`,
/// the JSON as the feed's server sent it, keyed by a hash of its URL. `chapters`
/// and `play` read a file here before the network, so a downloaded episode plays
/// with its chapters offline, and a second `play` waits for no server.
package struct ChaptersCache: Sendable {
    package let directory: URL
    package let http: any HTTPFetching

    package func file(for url: URL) -> URL {
        directory.appendingPathComponent(fnv1a64Key(url.absoluteString) + ".json")
    }

    /// The chapters at `url`: from the cache when a readable copy is there, else
    /// fetched (and kept when they decode), with `authorization` when the
    /// episode's feed is private and the chapters are on its origin.
    package func chapters(at url: URL, authorization: String? = nil) async throws(FeedError) -> [Chapter] {
        let file = file(for: url)
        if let data = try? Data(contentsOf: file), let list = try? ChapterList.decode(data, from: url) {
            return list.chapters
        }
        let body = try await http.getJSON(url, headers: authorization.map { [("Authorization", $0)] } ?? [])
        let list = try ChapterList.decode(body.data, from: url)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? body.data.write(to: file, options: .atomic)
        return list.chapters
    }
}
