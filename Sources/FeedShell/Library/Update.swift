import Foundation
import Library
import ShellKit
import TerminalKit

extension Command {
    private static let updated = CommandArgument<Selector>(
        "N|all",
        forms: .several,
        noun: "subscription",
        optional: true,
        completion: .selector(CompletionDomain.subscriptions)
    )

    static let update = Command(
        CommandSpec(
            "update",
            summary: "refresh subscriptions and say what is new",
            details: """
                Reads every subscription's feed (or those N names: 3, 1-3,5), eight at once and at
                most two from one host, with conditional requests: a feed that has not
                changed costs a 304. A feed that fails is recorded on its podcast
                ('podcasts' shows it) and never stops the others. On a terminal a line
                counts them as they come; then the new episodes per podcast, and the
                failures with their reasons. A feed that moved (301, 308 or
                itunes:new-feed-url) is followed from then on; one that is gone (410) is
                marked so. Then the new episodes of subscriptions with auto-download on
                ('set podcast N autodownload on') start downloading, and cleanup deletes
                the played files beyond each subscription's keep.
                """,
            arguments: [updated.spec],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let all = try await subscriptions(context).map(\.podcast)
        let chosen = try chosenSubscriptions(arguments[updated], of: all, synopsis: arguments.synopsis)
        guard !chosen.isEmpty else {
            context.output("no subscriptions to update", json: .array([]))
            return .proceed
        }
        let console = context.console
        let report = try await context.session.updateLibrary(chosen) { done, total, failed in
            console.progressLine("updating \(done)/\(total)" + (failed > 0 ? " · \(failed) failed" : ""))
        }
        console.endProgressLine()
        let results = report.results
        var lines: [String] = []
        var counts = (updated: 0, unchanged: 0, failed: 0, gone: 0, arrived: 0, interrupted: 0)
        for result in results {
            switch result.status {
            case .updated(let arrived):
                counts.updated += 1
                counts.arrived += arrived
                if arrived > 0 {
                    lines.append(
                        "\(TerminalText.line(result.title)): \(arrived) new \(arrived == 1 ? "episode" : "episodes")"
                    )
                } else if result.added > 0 {
                    // A first read: its history is the podcast's, not news.
                    let count = "\(result.added) \(result.added == 1 ? "episode" : "episodes")"
                    lines.append("\(TerminalText.line(result.title)): first read, \(count) (none marked new)")
                }
            case .unchanged: counts.unchanged += 1
            case .interrupted: counts.interrupted += 1
            case .failed(let reason):
                counts.failed += 1
                lines.append("failed \(TerminalText.line(result.title)): \(TerminalText.line(reason.description))")
            case .gone:
                counts.gone += 1
                lines.append("gone \(TerminalText.line(result.title)): the feed answers 410 Gone")
            }
        }
        var summary = "\(results.count) \(results.count == 1 ? "feed" : "feeds"): \(counts.updated) read"
        summary +=
            " (\(counts.arrived) new \(counts.arrived == 1 ? "episode" : "episodes")), \(counts.unchanged) unchanged"
        if counts.failed > 0 { summary += ", \(counts.failed) failed" }
        if counts.gone > 0 { summary += ", \(counts.gone) gone" }
        // Ctrl-C: what was read is stored; the rest is no failure of its feed, and
        // nothing more starts (no auto-downloads, no cleanup).
        let interrupted = counts.interrupted > 0
        if interrupted { summary += ", \(counts.interrupted) not read: interrupted" }
        lines.append(summary)
        lines += Self.autodownloadLines(report.autodownloads)
        lines += context.said(report.deletions)
        let transcripts = report.transcripts
        if transcripts.fetched + transcripts.failed > 0 {
            var line = "fetched \(transcripts.fetched) \(transcripts.fetched == 1 ? "transcript" : "transcripts")"
            if transcripts.failed > 0 {
                line += " (\(transcripts.failed) could not be read: 'transcript P:E' says why)"
            }
            lines.append(line)
        }
        context.output(
            lines.joined(separator: "\n"),
            json: .array(
                results.map { result in
                    let (status, arrived, error, code): (String, Int, String?, String?) =
                        switch result.status {
                        case .updated(let arrived): ("updated", arrived, nil, nil)
                        case .unchanged: ("unchanged", 0, nil, nil)
                        case .interrupted: ("interrupted", 0, "interrupted", nil)
                        case .failed(let reason): ("failed", 0, reason.description, reason.code)
                        case .gone: ("gone", 0, "HTTP 410 Gone", nil)
                        }
                    return .object([
                        "number": .int(Int(result.podcastID)),
                        "title": .string(result.title), "status": .string(status), "newEpisodes": .int(arrived),
                        "error": .string(error), "code": .string(code),
                    ])
                }
            )
        )
        if interrupted { throw .interrupted }
        return .proceed
    }
}

extension Command {
    /// The subscriptions `selector` names (every one without it), by their own
    /// numbers (`podcasts` lists them): `3`, `1-3,5`, `all`. A number that is no
    /// subscription is a usage error naming it and the numbers there are.
    static func chosenSubscriptions(
        _ selector: Selector?,
        of all: [StoredPodcast],
        synopsis: String
    ) throws(ShellError) -> [StoredPodcast] {
        guard case .ranges(let ranges)? = selector?.items else { return all }
        guard !all.isEmpty else { throw .noSubscriptions }
        let byNumber = Dictionary(all.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        var chosen: [StoredPodcast] = []
        var seen = Set<Int>()
        for number in ranges.joined() where seen.insert(number).inserted {
            guard let podcast = byNumber[number] else {
                throw .noSubscription(String(number), among: all, synopsis: synopsis)
            }
            chosen.append(podcast)
        }
        return chosen
    }

    /// `auto-download: downloading 3: Title`, a line each, or counts for many.
    static func autodownloadLines(_ started: [UpdateReport.AutoDownload]) -> [String] {
        let outcomes = started.map { download in
            let label = download.label
            return download.queued
                ? Outcome(kind: "queued", message: "queued \(label.number): \(label.title)")
                : Outcome(kind: "downloading", message: "downloading \(label.number): \(label.title)")
        }
        if outcomes.count > listLimit { return ["auto-download: " + summary(of: outcomes)] }
        return outcomes.map { "auto-download: " + $0.message }
    }
}
