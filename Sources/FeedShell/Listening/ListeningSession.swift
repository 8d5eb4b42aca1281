import Downloads
import FeedKit
import Foundation
import Library
import PlainText
import Playback

/// A file cleanup deleted: a played episode beyond its podcast's `keep`.
struct CleanupDeletion: Sendable, Equatable {
    let podcast: String
    let episode: String
    let path: String
    let keep: Int

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

extension Session {
    /// The library's settings; the defaults while there is no library file (reading
    /// settings never creates one).
    func settings() async -> Settings {
        if let cached = services.library.cachedSettings { return cached }
        guard let library = existingLibrary(), let settings = try? await library.settings() else { return Settings() }
        services.library.cachedSettings = settings
        return settings
    }

    /// Changes a setting (nil: back to its default) and applies it.
    func change(_ setting: Setting, to value: String?) async throws(ShellError) {
        let library = try library()
        try await libraryCall { () async throws(LibraryError) in try await library.set(setting, to: value) }
        services.library.cachedSettings = nil
        await applySettings()
    }

    /// Applies the settings that change how the session runs, `max-concurrent`,
    /// `max-size` and `rate-limit`, as they are in effect (`--max-concurrent`,
    /// `--max-filesize` and `--limit-rate` win; see ``settingsInEffect()``).
    func applySettings() async {
        let inEffect = await settingsInEffect()
        downloads.maxFileSize = inEffect.maxSize ?? DownloadManager.defaultMaxFileSize
        let rate = inEffect.rateLimit
        if downloads.limiter.rate != rate { downloads.limiter.rate = rate }
        let count = inEffect.maxConcurrent ?? configuration.maxConcurrent
        if await downloads.maxConcurrent != count { await downloads.setMaxConcurrent(count) }
    }

    /// The player: `FEEDSH_PLAYER`, else the `player` setting, else mpv.
    func player() async -> PlayerCommand {
        await settingsInEffect().player.map(PlayerCommand.init) ?? .mpv
    }

    /// The pager for long results: none with `--no-pager`, else the `pager`
    /// setting, else `$PAGER` or `less -FRX`.
    func pager() async -> String? {
        guard let chosen = await settingsInEffect().pager else { return configuration.pager }
        return chosen.isEmpty ? nil : chosen
    }

    /// Deletes the downloaded files of played episodes beyond the newest `keep` of
    /// each of these podcasts (those with a `keep`), unless the `cleanup` setting is
    /// off. Unplayed episodes and running downloads are never touched.
    func cleanUp(_ podcastIDs: some Sequence<Int64>) async -> [CleanupDeletion] {
        guard await settings().cleanup, let library = services.library.opened else { return [] }
        var deletions: [CleanupDeletion] = []
        for podcastID in Set(podcastIDs) {
            guard let podcast = try? await library.podcast(podcastID), let keep = podcast.keep,
                let stored = try? await library.episodes(of: podcastID)
            else { continue }
            var files: [Int64: DownloadLayout.File] = [:]
            for record in stored {
                guard let id = record.id, let episode = record.episode(in: podcast) else { continue }
                files[id] = layout.file(
                    podcastID: podcast.downloadKey,
                    episodeID: episode.id,
                    extension: episode.fileExtension
                )
            }
            let victims = Cleanup.victims(
                stored,
                keep: keep,
                hasFile: { record in
                    record.id.flatMap { files[$0] }.map { FileManager.default.fileExists(atPath: $0.final.path) }
                        ?? false
                },
                played: \.played
            )
            for record in victims {
                guard let id = record.id, let file = files[id] else { continue }
                let downloadID = String(record.downloadKey(in: podcast))
                if let state = await downloads.state(of: downloadID), state.isActive { continue }
                guard unlink(file.final.path) == 0 else { continue }
                try? await library.markDownloaded(id, false)
                deletions.append(
                    CleanupDeletion(podcast: podcast.title, episode: record.title, path: file.final.path, keep: keep)
                )
            }
        }
        return deletions.sorted { ($0.podcast, $0.path) < ($1.podcast, $1.path) }
    }

    /// Removes a download's complete file (the episode's record stays) and records
    /// that it is gone.
    func deleteFile(of request: DownloadRequest) async -> Bool {
        guard unlink(request.file.final.path) == 0 else { return false }
        if let episode = services.downloads.knownLabel(for: request.id)?.episode, let library = services.library.opened
        {
            try? await library.markDownloaded(episode.episode, false)
        }
        return true
    }
}
