import Downloads
import FeedKit
import Library

/// What `update` did: each feed's result, the downloads auto-download started
/// and the files cleanup deleted (neither runs after an interrupted update).
package struct UpdateReport: Sendable {
    package let results: [UpdateResult]
    /// The new episodes auto-download started or queued, in order.
    package let autodownloads: [AutoDownload]
    package let deletions: [CleanupDeletion]
    /// With `set transcripts auto on`: new episodes' transcripts fetched, and
    /// those that could not be.
    package var transcripts = (fetched: 0, failed: 0)

    /// Ctrl-C stopped it: the feeds it did not read are no failure of theirs.
    package var interrupted: Bool {
        results.contains { $0.status == .interrupted }
    }

    /// A download auto-download started (`queued`: waiting for a free slot).
    package struct AutoDownload: Sendable {
        package let label: DownloadLabel
        package let queued: Bool

        package init(label: DownloadLabel, queued: Bool) {
            self.label = label
            self.queued = queued
        }
    }
}

extension Services {
    /// Updates `podcasts` (calling `progress` with how many are done, of how many,
    /// and how many failed), then, unless it was interrupted, starts the new
    /// episodes of those with auto-download on, runs cleanup for them, and fetches
    /// new transcripts when asked to: the update over the library, the feeds, the
    /// downloads and listening together.
    package func update(
        _ podcasts: [StoredPodcast],
        progress: @escaping @Sendable (_ done: Int, _ total: Int, _ failed: Int) -> Void
    ) async throws(LibraryError) -> UpdateReport {
        let library = try self.library.open()
        let results = await FeedUpdater(library: library, client: sources.feeds).update(podcasts, progress: progress)
        guard !results.contains(where: { $0.status == .interrupted }) else {
            return UpdateReport(results: results, autodownloads: [], deletions: [])
        }
        let autodownloads = await autodownload(podcasts)
        let deletions = await downloads.cleanUp(podcasts.compactMap(\.id))
        var report = UpdateReport(results: results, autodownloads: autodownloads, deletions: deletions)
        if await self.library.settings().transcriptsAuto {
            report.transcripts = await fetchNewTranscripts(of: Set(podcasts.compactMap(\.id)), in: library)
        }
        return report
    }

    /// The most transcripts one `update` fetches, and at once.
    package static let transcriptsPerUpdate = 200
    package static let transcriptFetchesAtOnce = 4

    /// Fetches the transcripts of the new episodes of `podcastIDs` that offer
    /// one and have none kept (a failure is counted, not thrown: the next update
    /// tries again).
    private func fetchNewTranscripts(of podcastIDs: Set<Int64>, in library: Library) async -> (
        fetched: Int, failed: Int
    ) {
        let fresh = (try? await library.newEpisodes()) ?? []
        let ids = fresh.filter { podcastIDs.contains($0.podcast.id ?? -1) }.compactMap(\.episode.id)
        let wanted = ((try? await library.transcriptsToFetch(among: ids)) ?? []).prefix(Self.transcriptsPerUpdate)
        var counts = (fetched: 0, failed: 0)
        await withTaskGroup(of: Bool.self) { group in
            var pending = wanted.makeIterator()
            func next() -> Bool {
                guard let item = pending.next() else { return false }
                group.addTask {
                    do throws(TranscriptError) {
                        _ = try await listening.transcript(of: item.episodeID, offered: [item.transcript], title: "")
                        return true
                    } catch {
                        return false
                    }
                }
                return true
            }
            for _ in 0..<Self.transcriptFetchesAtOnce where next() {}
            for await succeeded in group {
                if succeeded { counts.fetched += 1 } else { counts.failed += 1 }
                _ = next()
            }
        }
        return counts
    }

    /// Starts the new, unplayed episodes of those of `podcasts` with auto-download
    /// on that are not downloaded or running already (here or in another process).
    private func autodownload(_ podcasts: [StoredPodcast]) async -> [UpdateReport.AutoDownload] {
        let ids = Set(podcasts.filter(\.autodownload).compactMap(\.id))
        guard !ids.isEmpty, let targets = try? await downloads.newTargets(of: ids), !targets.isEmpty else { return [] }
        await downloads.applySettings()
        var starting: [DownloadTarget] = []
        for target in targets where await downloads.status(of: target.request).isStartable {
            if downloads.engine.owner(of: target.request) == nil { starting.append(target) }
        }
        let results = await downloads.engine.start(starting.map(\.request))
        return zip(starting, results).compactMap { target, result in
            switch result {
            case .started: UpdateReport.AutoDownload(label: target.label, queued: false)
            case .queued: UpdateReport.AutoDownload(label: target.label, queued: true)
            case .alreadyActive: nil
            }
        }
    }
}
