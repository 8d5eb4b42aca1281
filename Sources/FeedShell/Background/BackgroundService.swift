import Background
import Downloads
import FeedServices
import Foundation
import Library
import ShellKit
import TerminalKit

/// The background feedsh (`feedsh --background`): runs the downloads shells hand
/// it, answers them on the control socket, records what finished or failed in the
/// library, and exits when nothing is left to do and no shell is connected.
public enum BackgroundService {
    /// How long it stays with nothing to do (and no shell connected) before it exits.
    static let idleGrace = Duration.seconds(3)
    /// How long it waits for the first downloads after starting.
    static let startGrace = Duration.seconds(30)

    public static func run(services: Services) async -> ExitStatus {
        let configuration = services.configuration
        let paths = ControlPaths()
        do throws(ControlError) {
            try paths.prepare()
        } catch {
            log(error.description)
            return .failure
        }
        // One per user: a second one started at the same moment leaves.
        guard let lock = ControlLock(path: paths.lock) else {
            log("another background feedsh is running; leaving")
            return .success
        }
        let session = Session(services: services)
        let library: Library
        do {
            library = try session.library()
        } catch {
            log("\(error)")
            return .failure
        }
        let service = ServiceState(session: session, library: library)
        let server: ControlServer
        do {
            server = try await ControlServer.start(path: paths.socket) { request in await service.handle(request) }
        } catch {
            log("cannot listen on \(paths.socket): \(error)")
            return .failure
        }
        log("started (pid \(getpid())), listening on \(paths.socket), library \(configuration.libraryFile.path)")
        let events = Task {
            await session.services.downloads.board.run(finish: { id in
                await session.services.downloads.downloadCompleted(id)
            }) { change in
                await service.record(change, server: server)
            }
        }
        // SIGTERM or SIGHUP (a shutdown, a logout): pause the downloads, keeping
        // their .part files, and leave.
        let watcher = SignalWatcher()
        let stopSignal = SignalFlag()
        for signal in [SIGTERM, SIGHUP, SIGINT] {
            watcher.on(signal) {
                stopSignal.set(signal)
                session.services.downloads.engine.stopStarting()
            }
        }
        defer { watcher.cancel() }
        let started = ContinuousClock.now
        while true {
            try? await Task.sleep(for: .milliseconds(250))
            if let signal = stopSignal.value {
                log("signal \(signal): pausing the downloads (resume continues them)")
                break
            }
            let idle = await service.idleSince
            let hadWork = await service.hadWork
            guard server.clients == 0, let idle else { continue }
            let grace = hadWork ? idleGrace : startGrace
            if ContinuousClock.now - max(idle, started) >= grace { break }
        }
        if stopSignal.value == nil { log("nothing left to do; exiting") }
        await server.stop()
        await session.close()
        await events.value
        unlink(paths.socket)
        withExtendedLifetime(lock) {}
        return .success
    }

    /// A line in `background.log`, with the time.
    static func log(_ text: String) {
        let stamp = ISO8601DateFormatter().string(from: Date())
        TerminalOutput.write("\(stamp) \(text)\n", to: STDOUT_FILENO)
    }
}

/// The background process's downloads and what it tells shells about them.
actor ServiceState {
    let session: Session
    let library: Library
    /// What the shells handed over, by download id.
    private var handed: [DownloadID: HandedDownload] = [:]
    /// When the last download stopped being active; nil while some are.
    private(set) var idleSince: ContinuousClock.Instant? = .now
    private(set) var hadWork = false

    init(session: Session, library: Library) {
        self.session = session
        self.library = library
    }

    func handle(_ request: ControlRequest) async -> Result<ControlMessage.Result, ControlMessage.Failure> {
        let engine = session.services.downloads.engine
        switch request.op {
        case .hello:
            return .success(.init(hello: ControlHello(pid: getpid(), library: session.configuration.libraryFile.path)))
        case .list:
            return .success(.init(downloads: await list()))
        case .get:
            let downloads = request.downloads ?? []
            guard !downloads.isEmpty else {
                return .failure(.init(code: "bad-request", message: "get names no downloads"))
            }
            var requests: [DownloadRequest] = []
            for download in downloads {
                guard download.path.hasPrefix("/"), let scheme = download.url.scheme,
                    ["http", "https"].contains(scheme)
                else {
                    return .failure(
                        .init(
                            code: "bad-request",
                            message: "download \(download.id) needs an http URL and an absolute path"
                        )
                    )
                }
                handed[DownloadID(download.id)] = download
                session.services.downloads.adopt(DownloadID(download.id), name: download.name)
                requests.append(downloadRequest(for: download))
            }
            hadWork = true
            idleSince = nil
            await engine.start(requests)
            BackgroundService.log("took over \(downloads.map(\.number).joined(separator: ", "))")
            return .success(.init(downloads: await list(downloads.map(\.id))))
        case .pause, .resume, .cancel:
            let ids = request.ids ?? []
            if let unknown = ids.first(where: { handed[DownloadID($0)] == nil }) {
                return .failure(.init(code: "unknown-download", message: "no download \(unknown) here"))
            }
            for id in ids.map({ DownloadID($0) }) {
                guard let download = handed[id] else { continue }
                switch request.op {
                case .pause: _ = await engine.pause(id)
                case .cancel: _ = await engine.cancel(id)
                default:
                    if await engine.state(of: id)?.isActive != true {
                        idleSince = nil
                        await engine.start(downloadRequest(for: download))
                    }
                }
            }
            await settle()
            return .success(.init(downloads: await list(ids)))
        case .subscribe:
            return .success(.init())
        }
    }

    private func downloadRequest(for download: HandedDownload) -> DownloadRequest {
        DownloadRequest(
            id: DownloadID(download.id),
            url: download.url,
            file: DownloadLayout.File(final: URL(fileURLWithPath: download.path)),
            declaredLength: download.declaredLength,
            authorization: download.authorization
        )
    }

    /// The handed downloads (or those of `ids`) as they stand.
    private func list(_ ids: [String]? = nil) async -> [ControlDownload] {
        var result: [ControlDownload] = []
        for (id, download) in handed where ids?.contains(id.rawValue) ?? true {
            let state = await session.services.downloads.engine.state(of: id) ?? .queued
            result.append(
                ControlDownload(
                    downloadRequest(for: download),
                    handed: download,
                    state: state
                )
            )
        }
        return result.sorted { $0.number < $1.number }
    }

    /// Whether anything is still active; the idle clock starts when nothing is.
    private func settle() async {
        let active = await session.services.downloads.engine.all().contains { $0.state.isActive }
        if active {
            idleSince = nil
        } else if idleSince == nil {
            idleSince = .now
        }
    }

    /// An engine event: sent to subscribed shells, written to the log, and, when a
    /// download ends, recorded in the library (reported at once when a shell was
    /// watching, else by the next feedsh that starts).
    func record(_ change: DownloadChange<[CleanupDeletion]>, server: ControlServer) async {
        let event = change.event
        guard let download = handed[event.id] else { return }
        let state = await session.services.downloads.engine.state(of: event.id) ?? .queued
        var reported = ControlDownload(
            downloadRequest(for: download),
            handed: download,
            state: state
        )
        if case .progress(_, let progress) = event {
            reported.state = .running
            reported.bytes = progress.bytes
            reported.total = progress.total
            reported.bytesPerSecond = progress.bytesPerSecond
        }
        server.publish(reported)
        let label = "\(download.number) \(download.title)"
        switch event {
        case .completed(_, let bytes, let file):
            BackgroundService.log("downloaded \(label) (\(bytes) bytes) to \(file.path)")
            for deletion in change.aftermath ?? [] { BackgroundService.log(deletion.message) }
            var away = AwayEvent(label: label, path: file.path, failed: false)
            away.reported = server.subscribed > 0
            try? await library.recordAway(away)
        case .failed(_, let error):
            BackgroundService.log("failed \(label): \(error.description)")
            var away = AwayEvent(label: label, path: download.path, failed: true, message: error.description)
            away.reported = server.subscribed > 0
            try? await library.recordAway(away)
        case .paused(_, let bytes, _):
            BackgroundService.log("paused \(label) at \(bytes) bytes")
        default:
            break
        }
        await settle()
    }
}

extension DownloadsService {
    /// Records how a shell named download `id` and which library episode it is
    /// (for a download a shell handed over).
    func adopt(_ id: DownloadID, name: DownloadName) {
        keep(name, for: id)
    }
}
