import Downloads
import FeedKit
import FeedServices
import Library
import PlainText

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

/// A call of the core's functions that throw their feature's typed problems
/// (each a ``CommandFailure``: a playlist's, a clip's, a copy's), a
/// ``LibraryError``, or a file's error (a clip's folder, a card's manifest),
/// failing as a shell command does.
func coreCall<T>(_ call: () async throws -> T) async throws(ShellError) -> T {
    do {
        return try await call()
    } catch let error as LibraryError {
        throw .library(error)
    } catch let failure as any CommandFailure {
        throw .failure(failure)
    } catch {
        throw .failure(FileFailure(description: SafeText.line(describeFileError(error))))
    }
}

/// A file the core could not make or write, said as the system says it.
struct FileFailure: CommandFailure {
    let description: String
    var failureCode: String { "failed" }
}
