import Downloads
import FeedKit
import FeedServices
import Foundation
import Library
import PlainText
import Playback

extension CleanupDeletion {
    /// `deleted PATH (played: Podcast: Title; keeping the newest 2)`.
    var message: String {
        "deleted \(SafeText.line(path)) (played: \(SafeText.line(podcast)): \(SafeText.line(episode)); "
            + "keeping the newest \(keep))"
    }

    var json: JSONValue {
        JSONValue(encoding: Line(path: path, podcast: podcast, title: episode, keep: keep))
    }

    /// `{"event": "deleted", "path", "podcast", "title", "keep"}`.
    private struct Line: Encodable {
        var event = "deleted"
        var path: String
        var podcast: String
        var title: String
        var keep: Int
    }
}
