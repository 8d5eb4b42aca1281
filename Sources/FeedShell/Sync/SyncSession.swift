import FeedKit
import FeedServices
import Foundation
import Library
import Sync
import SystemPackage

extension SyncError: CommandFailure {
    var failureCode: String { code }
}

extension SyncService {
    /// Where `sync login` keeps the account and its password.
    nonisolated var syncLoginFile: FilePath { SyncLogin.file(besideLibrary: configuration.libraryFile.path) }

    /// The login kept beside the library, or the failure that says to log in.
    nonisolated func syncLogin() throws(ShellError) -> SyncLogin {
        do throws(SyncError) {
            guard let login = try SyncLogin.load(syncLoginFile) else { throw .notLoggedIn }
            return login
        } catch {
            throw .failure(error)
        }
    }

    nonisolated func syncClient(_ login: SyncLogin) -> SyncClient {
        SyncClient(
            account: login.account,
            password: login.password,
            clients: sources.syncClients,
            userAgent: configuration.http.userAgent,
            timeout: configuration.http.requestTimeout
        )
    }

    /// Checks the password with the server, registers the device, and keeps the
    /// login (0600) beside the library. For an account never synced with, the
    /// listening done so far joins the outbox, so that the first sync sends it;
    /// returns how many plays that is.
    ///
    /// On a new machine (the natural first step on a second device) this makes
    /// the library, and with it the folder the login is kept in: what the first
    /// sync pulls needs a library to land in anyway.
    nonisolated func syncLogIn(_ login: SyncLogin) async throws(ShellError) -> Int {
        do throws(SyncError) {
            try await syncClient(login).login()
        } catch {
            throw .failure(error)
        }
        let library = try self.library.make()
        do throws(SyncError) {
            try login.save(syncLoginFile)
        } catch {
            throw .failure(error)
        }
        return try await libraryCall { () async throws(LibraryError) in
            guard try await library.syncCursor(login.account.key) == nil else { return 0 }
            return try await library.recordPlayStatesForFirstSync()
        }
    }

    /// Whether an account is logged in (its file is there).
    nonisolated var syncLoggedIn: Bool { FileManager.default.fileExists(atPath: syncLoginFile.string) }

    /// One sync, after any running or queued one: `sync` and the automatic ones
    /// never run at once, so nothing is sent twice by two of them. Ctrl-C stops
    /// it (what was not acknowledged stays in the outbox). `changed` hears of
    /// each subscription the sync removed, and of the end of the sync.
    nonisolated func sync(changed: @escaping @Sendable (SyncChange) async -> Void) async throws(ShellError)
        -> SyncReport
    {
        let run = await enqueue(
            { () async throws(ShellError) in try await self.syncOnce(changed: changed) },
            interrupted: .interrupted
        )
        return try await withTaskCancellationHandler {
            await run.value
        } onCancel: {
            run.cancel()
        }.get()
    }

    /// With `set sync auto on` and an account: queues a sync and returns at once;
    /// `then` gets its outcome. When an automatic sync is queued already and has
    /// not started, nothing is queued: that one will see every change made so far.
    /// ``syncsSettled()`` waits for the syncs and for `then`.
    nonisolated func syncAutomatically(
        changed: @escaping @Sendable (SyncChange) async -> Void,
        then: @escaping @Sendable (Result<SyncReport, ShellError>) async -> Void
    ) async {
        guard await library.settings().syncAuto, syncLoggedIn else { return }
        _ = await queueAutomatic(
            { () async throws(ShellError) in try await self.syncOnce(changed: changed) },
            interrupted: ShellError.interrupted,
            then: then
        )
    }

    /// One sync of the library with the account logged in; `changed` then hears
    /// that it ended, as a sync may have moved the episodes a front end shows.
    private nonisolated func syncOnce(
        changed: @escaping @Sendable (SyncChange) async -> Void
    ) async throws(ShellError) -> SyncReport {
        let login = try syncLogin()
        let library = try self.library.make()
        let synchronizer = Synchronizer(client: syncClient(login), library: library)
        let report: SyncReport
        do throws(SyncError) {
            report = try await synchronizer.sync(keeper: subscriptionKeeper(library, changed: changed))
        } catch {
            throw .failure(error)
        }
        await changed(.synced(library))
        return report
    }

    /// What `sync status` shows: the account, when it last synced, what waits.
    nonisolated func syncStatus() async throws(ShellError) -> SyncStatus {
        let login = try syncLogin()
        let library = try self.library.ifMade()
        let cursor = try await libraryCall { () async throws(LibraryError) in
            try await library?.syncCursor(login.account.key)
        }
        let waiting = try await libraryCall { () async throws(LibraryError) in
            try await library?.outboxSize() ?? (actions: 0, subscriptions: 0)
        }
        return SyncStatus(
            account: login.account,
            lastSync: cursor?.lastSync,
            actions: waiting.actions,
            subscriptions: waiting.subscriptions
        )
    }

    /// Follows other devices' subscriptions: subscribing reads the feed as
    /// `subscribe` does (one that cannot be read is not kept); unsubscribing keeps
    /// the files.
    private nonisolated func subscriptionKeeper(
        _ library: Library,
        changed: @escaping @Sendable (SyncChange) async -> Void
    ) -> SubscriptionKeeper {
        let updater = FeedUpdater(library: library, client: sources.feeds)
        return SubscriptionKeeper(
            subscribe: { url in
                // A `user:password@` URL another device subscribed with: its
                // credentials are kept apart from the feed URL, as `subscribe` keeps them.
                let feed: (url: URL, credentials: FeedCredentials?)
                do throws(FeedCredentialsError) {
                    feed = try FeedCredentials.split(url)
                } catch {
                    return error.description
                }
                do throws(LibraryError) {
                    let result = try await updater.subscribe(
                        feedURL: feed.url,
                        title: feed.url.absoluteString,
                        credentials: feed.credentials
                    ).result
                    if case .failed(let reason) = result.status { return reason.description }
                    if result.status == .interrupted { return "interrupted" }
                    return nil
                } catch {
                    return error.description
                }
            },
            unsubscribe: { feedURL in
                do throws(LibraryError) {
                    guard let url = URL(string: feedURL), let stored = try await library.podcast(feedURL: url) else {
                        return nil
                    }
                    try await library.unsubscribe(stored.id ?? -1)
                    await changed(.unsubscribed(stored.id ?? -1))
                    return nil
                } catch {
                    return error.description
                }
            }
        )
    }
}

/// What a sync changed that a front end may show.
enum SyncChange: Sendable {
    /// Another device's unsubscribe removed subscription `id`.
    case unsubscribed(Int64)
    /// The sync ended: what it merged is in `library`.
    case synced(Library)
}

/// The account logged in and what waits to be sent.
struct SyncStatus: Sendable {
    var account: SyncAccount
    var lastSync: Date?
    var actions: Int
    var subscriptions: Int
}
