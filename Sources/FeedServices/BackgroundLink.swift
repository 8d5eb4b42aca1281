import Background
import Downloads
import Foundation
import Library
import PlainText
import Processes
import Synchronization

/// A shell's connection to the background feedsh of its library. The states of the
/// downloads it runs live on the session's ``DownloadBoard``, kept current by its
/// events.
package final class BackgroundLink: Sendable {
    package let client: ControlClient
    package let pid: Int32

    package init(client: ControlClient, pid: Int32) {
        self.client = client
        self.pid = pid
    }

    package var isAlive: Bool { !closed.withLock { $0 } }
    private let closed = Mutex(false)
    package func markClosed() { closed.withLock { $0 = true } }
}

extension BackgroundLink: RemoteDownloads {
    package func request(_ operation: RemoteOperation, _ ids: [DownloadID]) async -> [(
        DownloadRequest, DownloadManager.State
    )]? {
        guard isAlive else { return nil }
        let op: ControlRequest.Operation =
            switch operation {
            case .pause: .pause
            case .resume: .resume
            case .cancel: .cancel
            }
        guard let result = try? await client.request(op, ids: ids.map(\.rawValue)) else { return nil }
        return (result.downloads ?? []).map { ($0.request, $0.engineState) }
    }
}

extension HandedDownload {
    package var name: DownloadName {
        DownloadName(handedAs: number, title: title, podcast: podcast, episodeID: episodeID, podcastID: podcastID)
    }
}

extension DownloadName {
    /// A download as a shell handed it to the background feedsh: named by its
    /// address (`P:E` for a library episode), which the control protocol
    /// carries as text beside the episode's ids.
    package init(handedAs number: String, title: String, podcast: String?, episodeID: Int64?, podcastID: Int64?) {
        let subject = podcastID.flatMap { podcast in
            episodeID.map { episode in
                DownloadSubject(
                    episode: EpisodeRef(podcast: podcast, episode: episode),
                    listed: ListedAddress(number)
                )
            }
        }
        self.init(DownloadLabel(number: number, title: title, podcast: podcast), subject: subject)
    }
}

extension ControlDownload {
    /// Its id, as the engine knows it (the socket carries its text).
    package var downloadID: DownloadID { DownloadID(id) }

    /// As the engine would say it.
    package var engineState: DownloadManager.State {
        switch state {
        case .queued: .queued
        case .running: .running(bytes.map { DownloadProgress(bytes: $0, total: total, bytesPerSecond: bytesPerSecond) })
        case .paused: .paused(bytes: bytes ?? 0, total: total)
        case .completed: .completed(bytes: bytes ?? 0)
        case .failed: .failed(.reported(code: code ?? "background", message: message ?? "failed"))
        case .cancelled: .cancelled
        }
    }

    /// The event a shell reports for this new state.
    package var event: DownloadEvent {
        switch state {
        case .queued: .queued(id: downloadID)
        case .running:
            bytes.map {
                .progress(id: downloadID, DownloadProgress(bytes: $0, total: total, bytesPerSecond: bytesPerSecond))
            } ?? .started(id: downloadID, offset: 0)
        case .paused: .paused(id: downloadID, bytes: bytes ?? 0, total: total)
        case .completed: .completed(id: downloadID, bytes: bytes ?? 0, file: URL(fileURLWithPath: path))
        case .failed: .failed(id: downloadID, .reported(code: code ?? "background", message: message ?? "failed"))
        case .cancelled: .cancelled(id: downloadID)
        }
    }

    package var name: DownloadName {
        DownloadName(handedAs: number, title: title, podcast: podcast, episodeID: episodeID, podcastID: podcastID)
    }

    /// The request it stands for (its URL unknown here: only its file matters).
    package var request: DownloadRequest {
        DownloadRequest(
            id: downloadID,
            url: URL(fileURLWithPath: "/"),
            file: DownloadLayout.File(final: URL(fileURLWithPath: path))
        )
    }

    /// A download's state as the background process reports it.
    package init(_ request: DownloadRequest, handed: HandedDownload, state: DownloadManager.State) {
        var download = ControlDownload(
            id: request.id.rawValue,
            number: handed.number,
            title: handed.title,
            path: request.file.final.path,
            state: .queued
        )
        download.episodeID = handed.episodeID
        download.podcastID = handed.podcastID
        download.podcast = handed.podcast
        switch state {
        case .queued: break
        case .running(let progress):
            download.state = .running
            download.bytes = progress?.bytes
            download.total = progress?.total
            download.bytesPerSecond = progress?.bytesPerSecond
        case .paused(let bytes, let total):
            download.state = .paused
            download.bytes = bytes
            download.total = total
        case .completed(let bytes):
            download.state = .completed
            download.bytes = bytes
        case .failed(let error):
            download.state = .failed
            download.message = error.description
            download.code = error.code.description
        case .cancelled:
            download.state = .cancelled
        }
        self = download
    }
}

/// The background feedsh could not be started or reached: what was tried, in
/// words (its log's path, the program that did not start).
package struct BackgroundError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

extension DownloadsService {
    /// Where the background process listens.
    package var controlPaths: ControlPaths { ControlPaths() }

    /// The background feedsh of this library, connected (once, and again after it
    /// went away) when one runs; nil when none does.
    @discardableResult
    package func connectBackground() async -> BackgroundLink? {
        if let link = backgroundLink, link.isAlive { return link }
        backgroundLink = nil
        let paths = controlPaths
        guard ControlLock.isHeld(paths.lock), let client = try? await ControlClient.connect(path: paths.socket) else {
            return nil
        }
        guard let hello = try? await client.request(.hello).hello,
            hello.library == configuration.libraryFile.path,
            let list = try? await client.request(.list),
            (try? await client.request(.subscribe)) != nil
        else {
            await client.close()
            return nil
        }
        let link = BackgroundLink(client: client, pid: hello.pid)
        let held = list.downloads ?? []
        for download in held { keep(download.name, for: download.downloadID) }
        await board.remoteConnected(held.map { ($0.request, $0.engineState) }, control: link)
        backgroundLink = link
        let board = board
        Task {
            for await download in client.events {
                self.remember(download)
                await board.remoteChanged(download.request, state: download.engineState, event: download.event)
            }
            link.markClosed()
            await board.remoteGone()
        }
        return link
    }

    /// Remembers how to name a download the background process reported.
    package func remember(_ download: ControlDownload) {
        keep(download.name, for: download.downloadID, replacing: false)
    }

    /// Hands this session's queued and running downloads to the background feedsh
    /// (started when none runs): they are paused here, which lets go of their
    /// files, and continued there. Returns how many, and the process's pid.
    package func detach() async throws(BackgroundError) -> (count: Int, pid: Int32) {
        let active = await engine.all().filter { $0.state.isActive }
        guard !active.isEmpty else { return (0, backgroundLink?.pid ?? 0) }
        // The demo's server and folder go with this process: a background feedsh
        // would download from nowhere into a folder that is gone.
        guard !configuration.demo else {
            throw BackgroundError(
                "the demo's fixture server and folder end with this shell, so its downloads cannot go on in the "
                    + "background: wait for them, or pause them (they go with the demo)"
            )
        }
        let link = try await startBackground()
        var handed: [HandedDownload] = []
        for (request, _) in active {
            _ = await engine.pause(request.id)
            let name = name(for: request.id)
            let reference = name.subject?.episode
            handed.append(
                HandedDownload(
                    id: request.id.rawValue,
                    url: request.url,
                    path: request.file.final.path,
                    number: name.address,
                    title: name.label.title,
                    episodeID: reference?.episode,
                    podcastID: reference?.podcast,
                    podcast: name.label.podcast,
                    declaredLength: request.declaredLength,
                    authorization: request.authorization
                )
            )
        }
        do throws(ControlError) {
            let result = try await link.client.request(.get, downloads: handed)
            for download in result.downloads ?? [] {
                await board.remoteChanged(download.request, state: download.engineState, event: nil)
            }
        } catch {
            // Not taken over: they go on here, from where they were paused.
            await engine.start(active.map(\.request))
            throw BackgroundError(error.description)
        }
        return (handed.count, link.pid)
    }

    /// The link to the background process, starting one when none runs.
    private func startBackground() async throws(BackgroundError) -> BackgroundLink {
        if let link = await connectBackground() { return link }
        let paths = controlPaths
        do throws(ControlError) {
            try paths.prepare()
        } catch {
            throw BackgroundError(error.description)
        }
        try BackgroundLauncher.launch(
            configuration: configuration,
            maxConcurrent: await engine.maxConcurrent,
            maxFileSize: engine.maxFileSize
        )
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let link = await connectBackground() { return link }
            try? await Task.sleep(for: .milliseconds(50))
        }
        throw BackgroundError("the background feedsh did not start (see \(BackgroundLauncher.logPath()))")
    }
}

/// Starts `feedsh --background` in a session of its own, without a terminal, its
/// output going to `$XDG_STATE_HOME/feedsh/background.log`.
package enum BackgroundLauncher {

    package static func logPath() -> String {
        ControlPaths.stateDirectory() + "/background.log"
    }

    package static func launch(configuration: Configuration, maxConcurrent: Int, maxFileSize: Int64)
        throws(BackgroundError)
    {
        // feedsh itself, beside whichever program runs this (feedsh, or a test
        // bundle SwiftPM built feedsh beside).
        let executable = Helpers.path("feedsh")
        let arguments =
            [
                executable, "--background", "--library", configuration.libraryFile.path, "--download-dir",
                configuration.downloadDirectory.path, "--cache-dir", configuration.cacheDirectory.path,
                "--max-concurrent", String(maxConcurrent), "--engine", configuration.engine.rawValue,
                "--max-filesize", String(maxFileSize),
            ] + (configuration.rateLimit.map { ["--limit-rate", String($0)] } ?? [])
        let log = logPath()
        try? FileManager.default.createDirectory(
            atPath: (log as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        let output = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            if output >= 0 { close(output) }
            if input >= 0 { close(input) }
        }
        guard output >= 0, input >= 0 else { throw BackgroundError("cannot open \(log)") }
        // A session of its own (setsid): no terminal, and no SIGHUP or ^C from this one.
        switch ForegroundProcess.spawn(arguments, input: input, output: output, error: output, newSession: true) {
        case .success(let process):
            // Reaped when it ends while this process still runs (else init reaps it).
            Task { _ = await process.exit() }
        case .failure(let error):
            throw BackgroundError("cannot start \(executable): \(error.localizedDescription)")
        }
    }
}
