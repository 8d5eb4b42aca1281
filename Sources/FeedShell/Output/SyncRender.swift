import FeedServices
import Foundation
import PlainText
import Sync

extension Render {
    /// How many skipped actions a sync's text names; the rest are counted.
    static let skippedNamed = 3

    /// What a sync did, a line a direction; problems that did not stop it follow.
    static func sync(_ report: SyncReport, account: SyncAccount) -> String {
        var lines: [SafeLine] = ["synced with \(account.server.absoluteString) as \(account.user)"]
        let subscriptions = report.subscriptionsAdded + report.subscriptionsRemoved
        lines.append(
            "sent \(counted(report.pushed, "action")) and \(subscriptions) subscription \(subscriptions == 1 ? "change" : "changes")"
        )
        var received = "received \(counted(report.pulled, "action")): "
        received += "\(report.episodesChanged) \(report.episodesChanged == 1 ? "episode" : "episodes") changed"
        if report.unmatched > 0 { received += ", \(report.unmatched) for episodes not in the library" }
        lines.append("\(received)")
        if !report.subscribed.isEmpty || !report.unsubscribed.isEmpty {
            lines.append(
                "followed other devices: subscribed to \(report.subscribed.count), unsubscribed from \(report.unsubscribed.count) (files kept)"
            )
        }
        if report.rewritten > 0 { lines.append("the server moved \(report.rewritten) feed addresses") }
        // A server can send thousands of bad actions: the first few are named,
        // the rest counted (--json lists them all).
        for skipped in report.skipped.prefix(Self.skippedNamed) {
            lines.append("skipped the action at \(skipped.path): \(skipped.reason.description)")
        }
        if report.skipped.count > Self.skippedNamed {
            let more = report.skipped.count - Self.skippedNamed
            lines.append("skipped \(more) more \(more == 1 ? "action" : "actions") the server sent malformed")
        }
        for problem in report.problems { lines.append("\(problem)") }
        if report.followsWaiting > 0 {
            let one = report.followsWaiting == 1
            lines.append(
                "\(report.followsWaiting) \(one ? "subscription" : "subscriptions") of other devices \(one ? "waits" : "wait") to be followed (at most \(Synchronizer.maxFollows) a sync)"
            )
        }
        if report.actionsLeft {
            let most = Synchronizer.maxPages * SyncClient.pageSize
            lines.append("the server has more than \(most) actions to send: the next sync goes on from here")
        }
        return SafeLine.lines(lines)
    }

    /// `2 actions (1 play, 1 download)`, kinds in the API's order.
    private static func counted(_ counts: [EpisodeAction.Kind: Int], _ noun: String) -> String {
        let total = counts.values.reduce(0, +)
        let kinds = EpisodeAction.Kind.allCases.compactMap { kind in counts[kind].map { "\($0) \(kind.rawValue)" } }
        return "\(total) \(noun)\(total == 1 ? "" : "s")" + (kinds.isEmpty ? "" : " (\(kinds.joined(separator: ", ")))")
    }

    /// `2026-11-27 13:05:09`, in the local time zone (`TZ`).
    static func localTime(_ date: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d",
            parts.year ?? 0,
            parts.month ?? 0,
            parts.day ?? 0,
            parts.hour ?? 0,
            parts.minute ?? 0,
            parts.second ?? 0
        )
    }

    static func syncStatus(_ status: SyncStatus) -> String {
        // The same in every locale: 2026-11-27 13:05:09, in local time.
        let last = status.lastSync.map { Self.localTime($0) } ?? "never"
        return SafeLine.lines([
            "server: \(status.account.server.absoluteString) (\(status.account.flavor == .nextcloud ? "Nextcloud gPodder Sync" : "gpodder.net API v2"))",
            "user: \(status.account.user)",
            "device: \(status.account.device)",
            "last sync: \(last)",
            "waiting to be sent: \(status.actions) \(status.actions == 1 ? "action" : "actions"), \(status.subscriptions) subscription \(status.subscriptions == 1 ? "change" : "changes")",
        ])
    }
}

extension JSONRender {
    static func sync(_ report: SyncReport, account: SyncAccount) -> JSONValue {
        func counts(_ counts: [EpisodeAction.Kind: Int]) -> JSONValue {
            .object(EpisodeAction.Kind.allCases.map { .init(key: $0.rawValue, value: .int(counts[$0] ?? 0)) })
        }
        return .object([
            "server": .string(account.server.absoluteString), "user": .string(account.user),
            "device": .string(account.device),
            "pushed": counts(report.pushed),
            "pulled": counts(report.pulled),
            "subscriptions": .object([
                "added": .int(report.subscriptionsAdded), "removed": .int(report.subscriptionsRemoved),
                "subscribed": .array(report.subscribed.map { .string($0) }),
                "unsubscribed": .array(report.unsubscribed.map { .string($0) }),
                "rewritten": .int(report.rewritten), "waiting": .int(report.followsWaiting),
            ]),
            "episodesChanged": .int(report.episodesChanged),
            "unmatched": .int(report.unmatched),
            "skipped": .array(
                report.skipped.map { .object(["path": .string($0.path), "reason": .string($0.reason.description)]) }
            ),
            "errors": .array(report.problems.map { .string($0) }),
            "actionsLeft": .bool(report.actionsLeft),
        ])
    }

    static func syncStatus(_ status: SyncStatus) -> JSONValue {
        .object([
            "server": .string(status.account.server.absoluteString), "user": .string(status.account.user),
            "device": .string(status.account.device), "api": .string(status.account.flavor.rawValue),
            "lastSync": .date(status.lastSync),
            "outbox": .object(["actions": .int(status.actions), "subscriptions": .int(status.subscriptions)]),
        ])
    }
}
