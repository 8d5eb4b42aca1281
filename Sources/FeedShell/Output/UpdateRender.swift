import FeedServices
import Library
import PlainText
import TerminalKit

extension Render {
    /// What `update` says: a line for each podcast with news or a failure, the
    /// counts, the downloads auto-download started, then `deletions` (cleanup's
    /// lines) and the transcripts fetched.
    static func update(_ report: UpdateReport, deletions: [String]) -> String {
        let results = report.results
        var lines: [String] = []
        var counts = (updated: 0, unchanged: 0, failed: 0, gone: 0, arrived: 0, interrupted: 0, unfinished: 0)
        for result in results {
            let title = SafeText.line(result.title)
            switch result.status {
            case .updated(let arrived):
                counts.updated += 1
                counts.arrived += arrived
                if arrived > 0 {
                    lines.append("\(title): \(arrived) new \(arrived == 1 ? "episode" : "episodes")")
                } else if result.added > 0 {
                    // A first read: its history is the podcast's, not news.
                    lines.append("\(title): first read, \(Formatting.count(result.added, "episode")) (none marked new)")
                }
            case .unchanged: counts.unchanged += 1
            case .interrupted: counts.interrupted += 1
            case .unfinished: counts.unfinished += 1
            case .failed(let reason):
                counts.failed += 1
                lines.append("failed \(title): \(SafeText.line(Advice.described(reason)))")
            case .gone:
                counts.gone += 1
                lines.append("gone \(title): the feed answers 410 Gone")
            }
        }
        var summary = "\(Formatting.count(results.count, "feed")): \(counts.updated) read"
        summary +=
            " (\(counts.arrived) new \(counts.arrived == 1 ? "episode" : "episodes")), \(counts.unchanged) unchanged"
        if counts.failed > 0 { summary += ", \(counts.failed) failed" }
        if counts.gone > 0 { summary += ", \(counts.gone) gone" }
        // Ctrl-C: what was read is stored; the rest is no failure of its feed, and
        // nothing more started (no auto-downloads, no cleanup).
        if counts.interrupted > 0 { summary += ", \(counts.interrupted) not read: interrupted" }
        // The deadline: the slowest servers are what was left; they are tried
        // again next time, and nothing is recorded against them.
        if counts.unfinished > 0 {
            let minutes = Int((FeedUpdater.deadline(forFeeds: results.count) / .seconds(60)).rounded(.up))
            summary += ", \(counts.unfinished) not read: the update's deadline (\(minutes) min) passed"
        }
        lines.append(summary)
        lines += autodownloads(report.autodownloads)
        lines += deletions
        let transcripts = report.transcripts
        if transcripts.fetched + transcripts.failed > 0 {
            var line = "fetched \(Formatting.count(transcripts.fetched, "transcript"))"
            if transcripts.failed > 0 {
                line += " (\(transcripts.failed) could not be read: 'transcript P:E' says why)"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// `auto-download: downloading 3: Title`, a line each, or counts for many.
    private static func autodownloads(_ started: [UpdateReport.AutoDownload]) -> [String] {
        let outcomes = started.map { download in
            download.queued ? TargetOutcome.queued(download.label) : .downloading(download.label)
        }
        if outcomes.count > TargetOutcome.listLimit {
            return ["auto-download: " + TargetOutcome.summary(of: outcomes)]
        }
        return outcomes.map { "auto-download: \($0.line.description)" }
    }
}

extension JSONRender {
    /// `update --json`: an object for each feed read.
    static func update(_ results: [UpdateResult]) -> JSONValue {
        JSONValue(
            encoding:
                results.map { result in
                    let (status, arrived, error, code): (String, Int, String?, String?) =
                        switch result.status {
                        case .updated(let arrived): ("updated", arrived, nil, nil)
                        case .unchanged: ("unchanged", 0, nil, nil)
                        case .interrupted: ("interrupted", 0, "interrupted", nil)
                        case .unfinished: ("unfinished", 0, "the update's deadline passed", "deadline")
                        case .failed(let reason): ("failed", 0, Advice.described(reason), reason.code)
                        case .gone: ("gone", 0, "HTTP 410 Gone", nil)
                        }
                    return UpdatedJSON(
                        number: Int(result.podcastID),
                        title: result.title,
                        status: status,
                        newEpisodes: arrived,
                        error: error,
                        code: code
                    )
                }
        )
    }
}

/// `update --json`: how one feed's read went.
private struct UpdatedJSON: Encodable {
    var number: Int
    var title: String
    /// `updated`, `unchanged`, `interrupted`, `unfinished`, `failed`, `gone`.
    var status: String
    var newEpisodes: Int
    @Nullable var error: String?
    @Nullable var code: String?
}
