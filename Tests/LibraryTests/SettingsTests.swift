import FeedKit
import Foundation
import Testing

@testable import Library

@Suite("Settings and listening state")
struct SettingsTests {
    func library() throws -> Library {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedsh-settings-\(UUID().uuidString)/library.sqlite").path
        return try Library(path: path)
    }

    @Test func settingsAreNormalizedStoredAndReset() async throws {
        let library = try library()
        #expect(try await library.settings() == Settings())
        #expect(try await library.settings().speed == 1)
        #expect(try await library.settings().cleanup)
        try await library.set(.speed, to: try Setting.speed.normalize("1.50"))
        try await library.set(.player, to: try Setting.player.normalize("  mpg123 -q {} "))
        try await library.set(.pager, to: try Setting.pager.normalize("none"))
        try await library.set(.cleanup, to: try Setting.cleanup.normalize("off"))
        let settings = try await library.settings()
        #expect(settings.speed == 1.5)
        #expect(settings.values[.speed] == "1.5")
        #expect(settings.player == "mpg123 -q {}")
        #expect(settings.pager == "")
        #expect(!settings.cleanup)
        try await library.set(.speed, to: nil)
        #expect(try await library.settings().speed == 1)
    }

    @Test func badValuesSayWhatTheSettingTakes() throws {
        #expect(throws: SettingError.self) { try Setting.speed.normalize("9") }
        #expect(throws: SettingError.self) { try Setting.speed.normalize("fast") }
        #expect(throws: SettingError.self) { try Setting.maxConcurrent.normalize("0") }
        #expect(throws: SettingError.self) { try Setting.cleanup.normalize("maybe") }
        #expect(throws: SettingError.self) { try Setting.player.normalize("  ") }
        #expect(speedError() == "speed takes a number from 0.25 to 4, not '9'")
        #expect(try Setting.maxConcurrent.normalize("5") == "5")
    }

    /// `max-size` as curl writes sizes: suffixes k, M, G, 1024-based.
    @Test func maxSizeTakesCurlsSizes() throws {
        #expect(try Setting.maxSize.normalize("500M") == "500M")
        #expect(try Setting.maxSize.normalize(" 4g ") == "4G")
        #expect(try Setting.maxSize.normalize("1048576") == "1M")
        #expect(try Setting.maxSize.normalize("1.5G") == "1536M")
        #expect(throws: SettingError.self) { try Setting.maxSize.normalize("big") }
        #expect(throws: SettingError.self) { try Setting.maxSize.normalize("100") }
        #expect(throws: SettingError.self) { try Setting.maxSize.normalize("-5M") }
    }

    @Test func positionsPlayedStateAndPodcastRules() async throws {
        let library = try library()
        let (podcast, _) = try await library.subscribe(feedURL: URL(string: "https://feeds.example/a.xml")!, title: "A")
        let id = try #require(podcast.id)
        var feed = Feed()
        feed.title = "A"
        feed.items = [
            FeedItem(guid: "1", title: "One", enclosure: Enclosure(url: URL(string: "https://media.example/1.mp3")!))
        ]
        try await library.store(feed, for: id, validators: (nil, nil))
        let episode = try #require(try await library.episodes(of: id).first?.id)
        try await library.savePosition(episode, seconds: 12.5)
        #expect(try await library.episode(episode)?.position == 12.5)
        try await library.mark([episode], .played)
        let played = try #require(try await library.episode(episode))
        #expect(played.played && played.position == 0 && !played.isNew)
        try await library.setAutodownload(id, true)
        try await library.setKeep(id, 2)
        let stored = try #require(try await library.podcast(id))
        #expect(stored.autodownload && stored.keep == 2)
        try await library.setKeep(id, nil)
        #expect(try await library.podcast(id)?.keep == nil)
    }

    @Test func cleanupKeepsTheNewestKFilesAndNeverUnplayedOnes() {
        // Newest first: (name, has a file, played).
        let episodes = [
            ("e1", true, false), ("e2", false, true), ("e3", true, true), ("e4", true, true), ("e5", true, false),
            ("e6", true, true),
        ]
        let victims = Cleanup.victims(episodes, keep: 2, hasFile: \.1, played: \.2).map(\.0)
        // e1 and e3 are the two newest files; e5 is unplayed; e2 has no file.
        #expect(victims == ["e4", "e6"])
        #expect(Cleanup.victims(episodes, keep: 0, hasFile: \.1, played: \.2).map(\.0) == ["e3", "e4", "e6"])
        #expect(Cleanup.victims(episodes, keep: 10, hasFile: \.1, played: \.2).isEmpty)
    }
}

private func speedError() -> String? {
    do {
        _ = try Setting.speed.normalize("9")
        return nil
    } catch {
        return error.description
    }
}
