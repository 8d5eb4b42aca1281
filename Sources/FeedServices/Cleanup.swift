import Downloads
import FeedKit
import Foundation
import Library
import Playback

extension DownloadsService {
    /// Applies the settings that change how the session runs, `max-concurrent`,
    /// `max-size` and `rate-limit`, as they are in effect (`--max-concurrent`,
    /// `--max-filesize` and `--limit-rate` win; see ``settingsInEffect()``).
    package func applySettings() async {
        let inEffect = await library.settingsInEffect()
        engine.maxFileSize = inEffect.maxSize ?? DownloadManager.defaultMaxFileSize
        let rate = inEffect.rateLimit
        if engine.limiter.rate != rate { engine.limiter.rate = rate }
        let count = inEffect.maxConcurrent ?? configuration.maxConcurrent
        if await engine.maxConcurrent != count { await engine.setMaxConcurrent(count) }
    }

    /// Deletes the downloaded files of played episodes beyond the newest `keep` of
    /// each of these podcasts (those with a `keep`), unless the `cleanup` setting is
    /// off. Unplayed episodes and running downloads are never touched.
    package func cleanUp(_ podcastIDs: some Sequence<Int64>) async -> [CleanupDeletion] {
        guard await self.library.settings().cleanup, let library = self.library.opened else { return [] }
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
                let downloadID = DownloadID(episode: record.downloadKey(in: podcast))
                if let state = await engine.state(of: downloadID), state.isActive { continue }
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
    package func deleteFile(of request: DownloadRequest) async -> Bool {
        guard unlink(request.file.final.path) == 0 else { return false }
        if let episode = knownName(for: request.id)?.subject?.episode, let library = self.library.opened {
            try? await library.markDownloaded(episode.episode, false)
        }
        return true
    }
}

extension ListeningService {
    /// The player: `FEEDSH_PLAYER`, else the `player` setting, else mpv.
    package func player() async -> PlayerCommand {
        await library.settingsInEffect().player.map(PlayerCommand.init) ?? .mpv
    }

    /// The pager for long results: none with `--no-pager`, else the `pager`
    /// setting, else `$PAGER` or `less -FRX`.
    package func pager() async -> String? {
        guard let chosen = await library.settingsInEffect().pager else { return configuration.pager }
        return chosen.isEmpty ? nil : chosen
    }
}
