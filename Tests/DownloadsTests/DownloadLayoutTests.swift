import Downloads
import Foundation
import Testing

@Suite("Download layout")
struct DownloadLayoutTests {
    @Test func pathsFollowTheContract() {
        let layout = DownloadLayout(root: URL(fileURLWithPath: "/data/feedsh/downloads"))
        let file = layout.file(podcastID: 1_386_867_488, episodeID: 1_000_700_000_001, extension: "m4a")
        #expect(file.final.path == "/data/feedsh/downloads/1386867488/1000700000001.m4a")
        #expect(file.part.path == "/data/feedsh/downloads/1386867488/1000700000001.m4a.part")
        #expect(file.sidecar.path == "/data/feedsh/downloads/1386867488/1000700000001.m4a.part.json")
    }

    /// The hash names files and cache entries on disk, so it never changes: FNV-1a's
    /// published values (of the UTF-8 bytes), whatever storage the string has.
    @Test func fnv1aIsFNV1a() {
        #expect(fnv1a64("") == 0xcbf2_9ce4_8422_2325)
        #expect(fnv1a64("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(fnv1a64("foobar") == 0x8594_4171_f739_67e8)
        #expect(fnv1a64("épisode ☕") == 0x052f_a895_7305_275a)
        #expect(fnv1a64(String("xfoobar".dropFirst())) == 0x8594_4171_f739_67e8)
        #expect(fnv1a64(NSString(string: "foo").appending("bar")) == 0x8594_4171_f739_67e8)
    }

    @Test func statusComesFromDisk() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-layout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = DownloadLayout(root: root)
        let file = layout.file(podcastID: 1, episodeID: 2, extension: "mp3")
        #expect(layout.status(of: file) == .absent)
        try FileManager.default.createDirectory(
            at: file.final.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(count: 10).write(to: file.part)
        #expect(layout.status(of: file) == .partial(bytes: 10, total: nil))
        try Data(#"{"url":"http://h/x","confirmedBytes":8,"expectedLength":100}"#.utf8).write(to: file.sidecar)
        #expect(layout.status(of: file) == .partial(bytes: 8, total: 100))
        try Data(count: 25).write(to: file.final)
        // A complete file wins over a leftover .part.
        #expect(layout.status(of: file) == .downloaded(bytes: 25))
    }

    /// The start's check for paused downloads, which lets it leave the library
    /// closed: only a `.part` in a podcast's folder counts.
    @Test func partFilesAreFoundInAnyPodcastsFolder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-layout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = DownloadLayout(root: root)
        #expect(!layout.hasPartFiles())
        let done = layout.file(podcastID: 1, episodeID: 2, extension: "mp3")
        let folder = done.final.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(count: 3).write(to: done.final)
        try Data(count: 3).write(to: folder.appendingPathComponent(".hidden.mp3.part"))
        try Data(count: 3).write(to: root.appendingPathComponent("stray.mp3.part"))
        #expect(!layout.hasPartFiles())
        let paused = layout.file(podcastID: DownloadLayout.feedKey("http://h/feed"), episodeID: 7, extension: "m4a")
        try FileManager.default.createDirectory(
            at: paused.final.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(count: 3).write(to: paused.part)
        #expect(layout.hasPartFiles())
    }
}
