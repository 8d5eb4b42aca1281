import Foundation
import Subprocess
import SystemPackage
import Testing

/// `copy` through the binary and the real FFmpeg, into a folder standing for a
/// player's card: FAT-safe names, tags read back with ffprobe, MP3 made from
/// WAV, skipping what is there, `--delete-played` touching only its own files.
@Suite("Copy to a device", .serialized)
struct DeviceCopyProcessTests {
    typealias Scene = ServeProcessTests.Scene

    func run(_ scene: Scene, _ commands: String, json: Bool = false) async throws -> FeedshResult {
        try await runFeedsh((json ? ["--json"] : []) + ["-c", commands], environment: scene.environment)
    }

    /// ffprobe's format tags (lower-cased keys) and length of a file.
    func tags(_ file: URL) async throws -> (tags: [String: String], seconds: Double) {
        let result = try await Subprocess.run(
            .name("ffprobe"),
            arguments: ["-v", "error", "-show_entries", "format=duration:format_tags", "-of", "json", file.path],
            output: .string(limit: 1 << 16)
        )
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        let format = object?["format"] as? [String: Any] ?? [:]
        let tags = (format["tags"] as? [String: String] ?? [:]).reduce(into: [String: String]()) {
            $0[$1.key.lowercased()] = $1.value
        }
        return (tags, Double(format["duration"] as? String ?? "") ?? -1)
    }

    func files(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func copiesTaggedSkipsWhatIsThereAndDeletesOnlyItsOwnPlayedFiles() async throws {
        try await Scene.with { scene in
            let card = scene.root.appendingPathComponent("card")
            try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
            let first = try await run(scene, "copy \(card.path)")
            #expect(first.status == 0, "\(first.standardError)")
            #expect(first.standardOutput.contains("copied 2, skipped 0, deleted 0"), "\(first.standardOutput)")
            // Each file as it is done, on standard error with the other progress.
            #expect(first.standardError.contains("copied 1:1 Listening Habits/"), "\(first.standardError)")
            let show = card.appendingPathComponent("Listening Habits")
            let names = files(show)
            #expect(names.count == 2, "\(names)")
            // "Sponsored: 40 seconds": the colon is not kept on FAT.
            let sponsored = try #require(names.first { $0.hasSuffix(" Sponsored_ 40 seconds.wav") }, "\(names)")
            #expect(sponsored.range(of: #"^\d{4}-\d{2}-\d{2} "#, options: .regularExpression) != nil)
            #expect(files(card).contains(".feedsh-copy.json"))
            let (wavTags, _) = try await tags(show.appendingPathComponent(sponsored))
            #expect(wavTags["title"] == "Sponsored: 40 seconds", "\(wavTags)")
            #expect(wavTags["album"] == "Listening Habits", "\(wavTags)")
            #expect(wavTags["genre"] == "Podcast", "\(wavTags)")
            // Again: both there, of the size written.
            let again = try await run(scene, "copy \(card.path)")
            #expect(again.standardOutput.contains("copied 0, skipped 2, deleted 0"), "\(again.standardOutput)")
            // A file copy did not write is never overwritten: the new one takes
            // another name beside it (the folder holds copy's own files too).
            let foreign = show.appendingPathComponent(
                String(sponsored.dropLast(".wav".count)) + ".mp3"
            )
            try Data("someone else's".utf8).write(to: foreign)
            let beside = try await run(scene, "copy \(card.path) 1:1 --to mp3")
            #expect(beside.status == 0, "\(beside.standardError)")
            #expect(try Data(contentsOf: foreign) == Data("someone else's".utf8))
            #expect(files(show).contains(String(sponsored.dropLast(".wav".count)) + " (2).mp3"), "\(files(show))")
            // As MP3 for a stereo that reads only that: ID3v2.4, tagged.
            let stereo = scene.root.appendingPathComponent("stereo")
            try FileManager.default.createDirectory(at: stereo, withIntermediateDirectories: true)
            let mp3 = try await run(scene, "copy \(stereo.path) 1:1 --to mp3 --bitrate 32k", json: true)
            #expect(mp3.status == 0, "\(mp3.standardError)")
            let converted = try #require(files(stereo.appendingPathComponent("Listening Habits")).first)
            #expect(converted.hasSuffix(" Sponsored_ 40 seconds.mp3"))
            let file = stereo.appendingPathComponent("Listening Habits").appendingPathComponent(converted)
            #expect(try Data(contentsOf: file).prefix(4) == Data([0x49, 0x44, 0x33, 0x04]))
            // As mutagen (the tag library of Quod Libet and beets) reads them.
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Scripts/read-tags.py")
            let read = try await Subprocess.run(
                .path("/usr/bin/python3"),
                arguments: [script.path, file.path],
                output: .string(limit: 1 << 16),
                error: .string(limit: 1 << 16)
            )
            let id3 = try JSONSerialization.jsonObject(with: Data(read.standardOutput.utf8)) as? [String: Any] ?? [:]
            #expect(id3["version"] as? [Int] == [2, 4, 0], "\(read.standardOutput) \(read.standardError)")
            #expect(id3["TIT2"] as? String == "Sponsored: 40 seconds" && id3["TALB"] as? String == "Listening Habits")
            #expect(id3["TRCK"] as? String == "1" && id3["TCON"] as? String == "Podcast", "\(id3)")
            #expect((id3["TPE1"] as? String)?.isEmpty == false && (id3["TDRC"] as? String)?.count == 10, "\(id3)")
            let (mp3Tags, seconds) = try await tags(file)
            #expect(mp3Tags["title"] == "Sponsored: 40 seconds" && mp3Tags["album"] == "Listening Habits", "\(mp3Tags)")
            #expect(mp3Tags["track"] == "1" && mp3Tags["genre"] == "Podcast", "\(mp3Tags)")
            #expect(mp3Tags["date"]?.count == 10, "\(mp3Tags)")
            #expect(abs(seconds - 40) < 0.5, "\(seconds)")
            // Played: --dry-run says so and leaves it; then only copy's own file goes.
            let mine = show.appendingPathComponent("mine.wav")
            try Data("not feedsh's".utf8).write(to: mine)
            let dry = try await run(scene, "mark played 1:1; copy \(card.path) --delete-played --dry-run")
            #expect(
                dry.standardError.contains("would delete Listening Habits/\(sponsored) (played)"),
                "\(dry.standardError)"
            )
            #expect(dry.standardOutput.contains("would have copied 0, skipped 1, deleted 2"), "\(dry.standardOutput)")
            #expect(files(show).count == 5, "\(files(show))")
            let deleted = try await run(scene, "copy \(card.path) --delete-played")
            // Both of 1:1's files copy wrote (WAV and MP3) go; the foreign MP3 stays.
            #expect(deleted.standardOutput.contains("copied 0, skipped 1, deleted 2"), "\(deleted.standardOutput)")
            #expect(!files(show).contains(sponsored))
            #expect(files(show).contains("mine.wav"))
            #expect(files(show).contains(foreign.lastPathComponent))
            let manifest = try String(contentsOf: card.appendingPathComponent(".feedsh-copy.json"), encoding: .utf8)
            #expect(!manifest.contains("Sponsored"), "\(manifest)")
        }
    }

    /// Whether an exFAT card image can be made and mounted here: root, a loop
    /// device, exfatprogs and the FUSE driver; always tried in CI as root.
    static let exFATCards =
        getuid() == 0
        && ["/usr/sbin/mkfs.exfat", "/usr/sbin/mount.exfat-fuse", "/usr/sbin/losetup", "/usr/bin/unshare"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }

    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts")

    /// The scene's environment with an image cache of its own that every run
    /// shares (each run has a new home): `artwork` fetches the cover there.
    func cache(_ scene: Scene) -> [String: String] {
        scene.environment.merging(["XDG_CACHE_HOME": scene.root.appendingPathComponent("cache").path]) { $1 }
    }

    /// Runs `arguments` with the exFAT `image` mounted on `card`, in a mount
    /// namespace of its own (Scripts/with-exfat-card.sh); feedsh with the
    /// scene's environment and ``cache(_:)``.
    func onCard(_ image: URL, _ card: URL, _ arguments: [String], _ scene: Scene) async throws -> (
        status: Bool, output: String, errors: String
    ) {
        let home = scene.root.appendingPathComponent("home")
        let result = try await Subprocess.run(
            .path(FilePath(Self.scripts.appendingPathComponent("with-exfat-card.sh").path)),
            arguments: Arguments([image.path, card.path] + arguments),
            environment: .custom(
                testEnvironment(cache(scene), home: home).reduce(into: [:]) {
                    $0[.init(stringLiteral: $1.key)] = $1.value
                }
            ),
            output: .string(limit: 1 << 20),
            error: .string(limit: 1 << 20)
        )
        return (result.terminationStatus.isSuccess, result.standardOutput, result.standardError)
    }

    /// A playlist onto a real exFAT card (an image on a loop device, mounted by
    /// the FUSE driver): the names it takes, ID3v2.4 tags and the cover as
    /// mutagen reads them, MP3 at the asked bitrate by ffprobe, and a second copy
    /// that skips everything.
    @Test(.enabled(if: exFATCards, "an exFAT card needs root, exfatprogs and exfat-fuse"))
    func aPlaylistOntoAnExFATCardReadsBackTaggedWithItsCover() async throws {
        try await Scene.with { scene in
            let setUp = try await runFeedsh(
                ["-c", "podcast 1; artwork; playlist add all downloaded sort:oldest"],
                environment: cache(scene)
            )
            #expect(setUp.status == 0, "\(setUp.standardError)")
            let image = scene.root.appendingPathComponent("card.img")
            let card = scene.root.appendingPathComponent("card")
            try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
            try Data().write(to: image)
            try FileHandle(forWritingTo: image).truncate(atOffset: 32 << 20)
            let formatted = try await Subprocess.run(
                .path("/usr/sbin/mkfs.exfat"),
                arguments: ["-L", "PLAYER", image.path],
                output: .discarded,
                error: .string(limit: 1 << 16)
            )
            try #require(formatted.terminationStatus.isSuccess, "\(formatted.standardError)")
            let copy = [feedshBinary.path, "-c", "copy \(card.path) playlist all --to mp3 --bitrate 48k"]
            let first = try await onCard(image, card, copy, scene)
            #expect(first.status, "\(first.errors)")
            #expect(first.output.contains("copied 2, skipped 0, deleted 0"), "\(first.output)")
            let again = try await onCard(image, card, copy, scene)
            #expect(again.output.contains("copied 0, skipped 2, deleted 0"), "\(again.output) \(again.errors)")

            let read = try await onCard(
                image,
                card,
                ["/usr/bin/python3", Self.scripts.appendingPathComponent("read-tags.py").path, card.path],
                scene
            )
            #expect(read.status, "\(read.errors)")
            let files =
                try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: [String: Any]] ?? [:]
            #expect(files.count == 2, "\(read.output)")
            let gap = try #require(
                files.first { $0.key.hasSuffix(" Gap_ 30 seconds, silent from 5 to 15.mp3") },
                "\(files.keys)"
            )
            #expect(gap.key.hasPrefix("Listening Habits/"), "\(gap.key)")
            #expect(gap.value["version"] as? [Int] == [2, 4, 0])
            #expect(gap.value["TIT2"] as? String == "Gap: 30 seconds, silent from 5 to 15", "\(gap.value)")
            #expect(gap.value["TALB"] as? String == "Listening Habits" && gap.value["TCON"] as? String == "Podcast")
            #expect(gap.value["TRCK"] as? String == "2", "\(gap.value)")
            #expect(gap.value["pictures"] as? Int == 1 && gap.value["pictureTypes"] as? [String] == ["image/jpeg"])

            let probed = try await onCard(
                image,
                card,
                [
                    "/usr/bin/ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                    "stream=codec_name,bit_rate", "-of", "csv=p=0", card.appendingPathComponent(gap.key).path,
                ],
                scene
            )
            #expect(probed.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mp3,48000", "\(probed)")
        }
    }

    /// A card that fills up: the file that did not fit is not left under its
    /// name (nor its temporary one), the error names it and what it wanted, and
    /// the manifest holds what was written. A 700 kB tmpfs stands for the card
    /// (mounting needs root, which CI has).
    @Test(.enabled(if: getuid() == 0, "mounting a small card needs root"))
    func aFullCardLeavesNoHalfFile() async throws {
        try await Scene.with { scene in
            let card = scene.root.appendingPathComponent("small")
            try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
            let mounted = try await Subprocess.run(
                .name("mount"),
                arguments: ["-t", "tmpfs", "-o", "size=700k", "tmpfs", card.path],
                output: .discarded,
                error: .string(limit: 1 << 16)
            )
            try #require(mounted.terminationStatus.isSuccess, "\(mounted.standardError)")
            defer {
                _ = try? Foundation.Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: [card.path])
                    .waitUntilExit()
            }
            let full = try await run(scene, "copy \(card.path) 1:2; copy \(card.path) 1:1")
            #expect(full.status == 1)
            #expect(full.standardError.contains("the device is full: Listening Habits/"), "\(full.standardError)")
            #expect(full.standardError.contains("Sponsored_ 40 seconds.wav wanted about"), "\(full.standardError)")
            let show = card.appendingPathComponent("Listening Habits")
            #expect(files(show).count == 1, "\(files(show))")
            #expect(files(show).allSatisfy { $0.contains("Gap_ 30 seconds") }, "\(files(show))")
            let manifest = try String(contentsOf: card.appendingPathComponent(".feedsh-copy.json"), encoding: .utf8)
            #expect(manifest.contains("Gap_ 30 seconds") && !manifest.contains("Sponsored"), "\(manifest)")
        }
    }

    @Test func refusalsWriteNothing() async throws {
        try await Scene.with { scene in
            let missing = try await run(scene, "copy \(scene.root.path)/no-card")
            #expect(missing.status == 1)
            #expect(missing.standardError.contains("no-card is not a folder"), "\(missing.standardError)")
            let flac = try await run(scene, "copy \(scene.root.path) --to flac")
            #expect(flac.status != 0)
            #expect(flac.standardError.contains("--to takes one of mp3, opus, m4a"), "\(flac.standardError)")
            let rate = try await run(scene, "copy \(scene.root.path) --bitrate lots")
            #expect(rate.standardError.contains("--bitrate takes 8k to 512k"), "\(rate.standardError)")
        }
    }
}
