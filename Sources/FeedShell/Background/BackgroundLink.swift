import Background
import Downloads
import FeedServices
import Foundation
import Library
import PlainText
import Processes
import Synchronization

extension DownloadsService {
    /// Where the background process listens.
    var controlPaths: ControlPaths { ControlPaths() }

    /// The background feedsh of this library, connected (once, and again after it
    /// went away) when one runs; nil when none does.
    @discardableResult
    func connectBackground() async -> BackgroundLink? {
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
        for download in held { keep(download.label, for: download.downloadID) }
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
    func remember(_ download: ControlDownload) {
        keep(download.label, for: download.downloadID, replacing: false)
    }

    /// Hands this session's queued and running downloads to the background feedsh
    /// (started when none runs): they are paused here, which lets go of their
    /// files, and continued there. Returns how many, and the process's pid.
    package func detach() async throws(ShellError) -> (count: Int, pid: Int32) {
        let active = await engine.all().filter { $0.state.isActive }
        guard !active.isEmpty else { return (0, backgroundLink?.pid ?? 0) }
        let link = try await startBackground()
        var handed: [HandedDownload] = []
        for (request, _) in active {
            _ = await engine.pause(request.id)
            let label = label(for: request.id)
            let reference = label.episode
            handed.append(
                HandedDownload(
                    id: request.id.rawValue,
                    url: request.url,
                    path: request.file.final.path,
                    number: label.address,
                    title: label.title,
                    episodeID: reference?.episode,
                    podcastID: reference?.podcast,
                    podcast: label.podcast,
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
            throw .background(error.description)
        }
        return (handed.count, link.pid)
    }

    /// The link to the background process, starting one when none runs.
    private func startBackground() async throws(ShellError) -> BackgroundLink {
        if let link = await connectBackground() { return link }
        let paths = controlPaths
        do throws(ControlError) {
            try paths.prepare()
        } catch {
            throw .background(error.description)
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
        throw .background("the background feedsh did not start (see \(BackgroundLauncher.logPath()))")
    }
}

/// Starts `feedsh --background` in a session of its own, without a terminal, its
/// output going to `$XDG_STATE_HOME/feedsh/background.log`.
enum BackgroundLauncher {

    static func logPath() -> String {
        ControlPaths.stateDirectory() + "/background.log"
    }

    static func launch(configuration: Configuration, maxConcurrent: Int, maxFileSize: Int64) throws(ShellError) {
        // feedsh itself, beside whichever program runs this (feedsh, or the
        // feedsh-mcp helper, which takes none of these flags).
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
        guard output >= 0, input >= 0 else { throw .background("cannot open \(log)") }
        // A session of its own (setsid): no terminal, and no SIGHUP or ^C from this one.
        switch ForegroundProcess.spawn(arguments, input: input, output: output, error: output, newSession: true) {
        case .success(let process):
            // Reaped when it ends while this process still runs (else init reaps it).
            Task { _ = await process.exit() }
        case .failure(let error):
            throw .background("cannot start \(executable): \(error.localizedDescription)")
        }
    }
}
