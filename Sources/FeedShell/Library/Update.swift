import FeedServices
import Foundation
import Library
import ShellKit

extension Command {
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
                the played files beyond each subscription's keep. With 'set sync auto on',
                a sync follows in the background.
                """,
            arguments: [updated.spec],
            waitsOnNetwork: true
        ),
        syncsAfter: true
    ) { arguments, context throws(ShellError) in
        let all = try await subscriptions(context).map(\.podcast)
        let chosen = try chosenSubscriptions(arguments[updated], of: all, synopsis: arguments.synopsis)
        guard !chosen.isEmpty else { return Updated(report: nil) }
        let report = try await context.session.updateLibrary(chosen) { done, total, failed in
            context.report(.updating(done: done, total: total, failed: failed))
        }
        context.report(.progressEnded)
        // Said before the result: with --json, each deletion is an event line of its own.
        context.report(.deleted(report.deletions))
        if report.interrupted { throw .interrupted }
        return Updated(report: report)
    }
}

/// What `update` read: each feed's result, what arrived, what auto-download
/// started and cleanup deleted; nil when there was nothing to update.
struct Updated: CommandResult {
    let report: UpdateReport?

    /// Feeds that failed, answered 410, or were not read by the deadline.
    var feedsNotRead: Int {
        report?.results.filter {
            switch $0.status {
            case .failed, .gone, .unfinished: true
            default: false
            }
        }.count ?? 0
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
}

extension Command {
    private static let updated = CommandArgument<Selector>(
        "N|all",
        forms: .several,
        noun: "subscription",
        optional: true,
        completion: .selector(CompletionDomain.subscriptions)
    )
}
