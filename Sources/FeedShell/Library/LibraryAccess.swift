import Downloads
import FeedKit
import FeedServices
import Library

extension LibraryService {
    /// The library, opened (and migrated) the first time a command needs it.
    package func make() throws(ShellError) -> Library {
        do throws(LibraryError) {
            return try open()
        } catch {
            throw .library(error)
        }
    }

    /// The library when its file exists (opened if needed, failing as ``make()``
    /// does); nil, without making one, when it does not: for commands that only
    /// read it (`find`, `queue`).
    package func ifMade() throws(ShellError) -> Library? {
        do throws(LibraryError) {
            return try openIfExists()
        } catch {
            throw .library(error)
        }
    }
}

extension LibraryService {
    /// ``view(of:)``, failing as a shell command does.
    func viewForShell(of podcast: StoredPodcast) async throws(ShellError) -> (Podcast, LoadedSubscription) {
        do throws(LibraryError) {
            return try await view(of: podcast)
        } catch {
            throw .library(error)
        }
    }
}

extension DownloadsService {
    /// ``targets(of:)``, failing as a shell command does.
    func targetsForShell(of refs: [EpisodeRef]) async throws(ShellError) -> [DownloadTarget] {
        do throws(LibraryError) {
            return try await targets(of: refs)
        } catch {
            throw .library(error)
        }
    }

    /// ``newTargets(of:)``, failing as a shell command does.
    func newTargetsForShell(of podcastIDs: Set<Int64>? = nil) async throws(ShellError) -> [DownloadTarget] {
        do throws(LibraryError) {
            return try await newTargets(of: podcastIDs)
        } catch {
            throw .library(error)
        }
    }
}
