import Downloads
import FeedServices
import PlainText
import TerminalKit

/// What a download command (`get`, `pause`, `resume`, `cancel`, `delete`,
/// `preview`) did to one download, named by the number it was typed by.
enum TargetOutcome: Sendable, Equatable {
    case downloading(DownloadLabel)
    case queued(DownloadLabel)
    case alreadyDownloaded(String)
    case alreadyDownloading(String)
    /// Another process holds it (`pid`, when known).
    case elsewhere(String, pid: Int32?)
    case paused(String, bytes: Int64, total: Int64?, background: Bool)
    /// It finished before it could be paused.
    case finishedFirst(String)
    /// The background feedsh that held it went away before it could be paused.
    case pauseLost(String)
    case notDownloading(String)
    /// Not paused, nor anything to resume (`get N` starts it).
    case notPaused(String)
    case resuming(String, bytes: Int64, total: Int64?)
    case resumingInBackground(String, bytes: Int64?, total: Int64?)
    case retrying(String)
    case cancelled(String, background: Bool)
    /// The background feedsh that held it went away before it could be cancelled.
    case cancelLost(String)
    case notCancelled(String, reason: String)
    /// A partial download of an earlier session, kept as asked.
    case kept(String)
    /// `cancel` of a finished download: `delete` removes the file.
    case finished(String)
    case deleted(DownloadLabel, path: String)
    /// `delete` of a download still running: `cancel` stops it.
    case stillDownloading(String)
    case notDownloaded(String)

    /// The line that says it: `queued 4: Title`, `paused 3 at 41.2%`.
    var line: SafeLine {
        switch self {
        case .downloading(let label): "downloading \(label.number): \(label.title)"
        case .queued(let label): "queued \(label.number): \(label.title)"
        case .alreadyDownloaded(let number): "\(number) is already downloaded"
        case .alreadyDownloading(let number): "\(number) is already downloading"
        case .elsewhere(let number, let pid):
            "\(number) is being downloaded by feedsh (\(pid.map { "pid \($0)" } ?? "another process"))"
        case .paused(let number, let bytes, let total, let background):
            "paused \(number) at \(Formatting.precisePercent(bytes, of: total))\(background ? " (in the background)" : "")"
        case .finishedFirst(let number): "\(number) finished before it could be paused"
        case .pauseLost(let number), .cancelLost(let number): "\(number): the background feedsh went away"
        case .notDownloading(let number): "\(number) is not downloading"
        case .notPaused(let number): "\(number) is not paused (use 'get \(number)')"
        case .resuming(let number, let bytes, let total):
            "resuming \(number) at \(Formatting.precisePercent(bytes, of: total))"
        case .resumingInBackground(let number, let bytes, let total):
            "resuming \(number)\(bytes.map { " at \(Formatting.precisePercent($0, of: total))" } ?? "") in the background"
        case .retrying(let number): "retrying \(number)"
        case .cancelled(let number, let background): "cancelled \(number)\(background ? " (in the background)" : "")"
        case .notCancelled(let number, let reason): "\(number): \(reason)"
        case .kept(let number): "kept \(number)'s partial download"
        case .finished(let number): "\(number) is already downloaded ('delete \(number)' removes the file)"
        case .deleted(let label, let path): "deleted \(label.number): \(label.title) (\(path))"
        case .stillDownloading(let number): "\(number) is downloading: 'cancel \(number)' stops it"
        case .notDownloaded(let number): "\(number) has no downloaded file"
        }
    }

    /// What happened, as summaries count it (`3 queued`).
    var kind: String {
        switch self {
        case .downloading, .stillDownloading: "downloading"
        case .queued: "queued"
        case .alreadyDownloaded: "already downloaded"
        case .alreadyDownloading: "already downloading"
        case .elsewhere: "being downloaded elsewhere"
        case .paused: "paused"
        case .finishedFirst: "finished first"
        case .pauseLost: "not paused"
        case .notDownloading: "not downloading"
        case .notPaused: "not paused"
        case .resuming, .resumingInBackground, .retrying: "resumed"
        case .cancelled: "cancelled"
        case .cancelLost, .notCancelled: "not cancelled"
        case .kept: "kept from an earlier session"
        case .finished: "finished"
        case .deleted: "deleted"
        case .notDownloaded: "not downloaded"
        }
    }

    /// Selections longer than this, and `all`, are summarised (`9997 queued,
    /// 3 downloading`) instead of a line each.
    static let listLimit = 12

    /// `3 downloading, 9997 queued`: the kinds in the order they first came.
    static func summary(of outcomes: [TargetOutcome]) -> String {
        var counts: [(kind: String, count: Int)] = []
        var index: [String: Int] = [:]
        for outcome in outcomes {
            if let at = index[outcome.kind] {
                counts[at].count += 1
            } else {
                index[outcome.kind] = counts.count
                counts.append((outcome.kind, 1))
            }
        }
        return counts.map { "\($0.count) \($0.kind)" }.joined(separator: ", ")
    }
}

/// What a download command did to each download it was given: a line each, or
/// counts when there are many or `summarised` (for `all`); JSON always has them all.
struct TargetOutcomes: CommandResult {
    /// One download: how it is named, what happened, and (with `--json`) its status
    /// after.
    struct Row: Sendable {
        let label: DownloadLabel
        let id: DownloadID
        let outcome: TargetOutcome
        let status: EpisodeStatus?
    }

    let rows: [Row]
    let summarised: Bool
    /// What to say when there was nothing to act on.
    var empty: EmptyListing = .noDownloads

    func text(on page: Page) -> String? {
        guard !rows.isEmpty else { return empty.line.description }
        let outcomes = rows.map(\.outcome)
        let counts = outcomes.count > TargetOutcome.listLimit || (summarised && outcomes.count > 1)
        return counts ? TargetOutcome.summary(of: outcomes) : SafeLine.lines(outcomes.map(\.line))
    }

    func encode(to encoder: any Encoder) throws {
        try rows.map { row in
            OutcomeJSON(
                number: row.label.number,
                id: row.id.rawValue,
                message: row.outcome.line.description,
                status: row.status.map(JSONRender.status)
            )
        }.encode(to: encoder)
    }
}

/// One target's line in `--json`: its number, download id, what happened, and
/// its status after.
private struct OutcomeJSON: Encodable {
    var number: String
    var id: String
    var message: String
    @Nullable var status: JSONValue?
}

/// What a listing says when it has nothing in it.
enum EmptyListing: Sendable {
    case noDownloads
    case noDownloadsTo(verb: String)
    case noNewEpisodes
    case emptyPlaylist(String)
    case noSubscriptions
    case noChapters(episode: String)
    case noPodcasts(matching: String)
    case noSongs(matching: String)
    case noSubscriptionsToUpdate

    var line: SafeLine {
        switch self {
        case .noDownloads: "no downloads"
        case .noDownloadsTo(let verb): "no downloads to \(verb)"
        case .noNewEpisodes: "no new episodes"
        case .emptyPlaylist(let name): "playlist \(SafeText.line(name)) holds no episodes now"
        case .noSubscriptions: "no subscriptions: 'subscribe ID|URL' or 'import FILE' adds some"
        case .noChapters(let episode): Render.noChapters(episode: episode)
        case .noPodcasts(let term): "no podcasts match '\(term)'"
        case .noSongs(let term): "no songs match '\(term)'"
        case .noSubscriptionsToUpdate: "no subscriptions to update"
        }
    }
}
