import FeedServices
import Foundation
import Library
import ServiceLifecycle

/// `serve --update-every`: updates every subscription on a schedule, as `update`
/// does (auto-download and cleanup included), beside the server. A SIGTERM
/// during an update lets it finish its writes; one between updates ends the wait.
public struct ScheduledUpdate: Service {
    let services: Services
    let interval: Duration
    let log: @Sendable (ServeUpdateLine) -> Void

    public init(services: Services, every interval: Duration, log: @escaping @Sendable (ServeUpdateLine) -> Void) {
        self.services = services
        self.interval = interval
        self.log = log
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully {
            let interval = self.interval
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            guard !Task.isShuttingDownGracefully else { break }
            // In a task of its own: shutting down does not cancel an update under way.
            let line = await Task { await Self.update(services) }.value
            log(line)
        }
    }

    /// One update of every subscription, as a log line.
    static func update(_ services: Services) async -> ServeUpdateLine {
        let start = ContinuousClock.now
        var line = ServeUpdateLine()
        do throws(LibraryError) {
            guard let library = try services.library.openIfExists() else { return line }
            let podcasts = try await library.podcasts().map(\.podcast)
            let report = try await services.update(podcasts) { _, _, _ in }
            line.podcasts = report.results.count
            for result in report.results {
                switch result.status {
                case .updated(let new): line.newEpisodes += new
                case .failed, .gone: line.failed += 1
                default: break
                }
            }
            line.downloads = report.autodownloads.count
        } catch {
            line.error = "\(error)"
        }
        let elapsed = ContinuousClock.now - start
        line.milliseconds = Int(
            elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        )
        return line
    }
}

/// One scheduled update, as `serve` logs it.
public struct ServeUpdateLine: Sendable, Equatable {
    public var podcasts = 0
    public var failed = 0
    public var newEpisodes = 0
    /// Downloads auto-download started.
    public var downloads = 0
    public var error: String?
    public var milliseconds = 0
}
