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
        .object([
            "event": .string("deleted"), "path": .string(path), "podcast": .string(podcast),
            "title": .string(episode), "keep": .int(keep),
        ])
    }
}
