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
        JSONValue(
            encoding: SyncJSON(
                server: account.server.absoluteString,
                user: account.user,
                device: account.device,
                pushed: ActionCounts(report.pushed),
                pulled: ActionCounts(report.pulled),
                subscriptions: .init(
                    added: report.subscriptionsAdded,
                    removed: report.subscriptionsRemoved,
                    subscribed: report.subscribed,
                    unsubscribed: report.unsubscribed,
                    rewritten: report.rewritten,
                    waiting: report.followsWaiting
                ),
                episodesChanged: report.episodesChanged,
                unmatched: report.unmatched,
                skipped: report.skipped.map { .init(path: $0.path, reason: $0.reason.description) },
                errors: report.problems,
                actionsLeft: report.actionsLeft
            )
        )
    }

    /// `sync --json`.
    private struct SyncJSON: Encodable {
        struct Subscriptions: Encodable {
            var added: Int
            var removed: Int
            var subscribed: [String]
            var unsubscribed: [String]
            var rewritten: Int
            var waiting: Int
        }

        struct Skipped: Encodable {
            var path: String
            var reason: String
        }

        var server: String
        var user: String
        var device: String
        var pushed: ActionCounts
        var pulled: ActionCounts
        var subscriptions: Subscriptions
        var episodesChanged: Int
        var unmatched: Int
        var skipped: [Skipped]
        var errors: [String]
        var actionsLeft: Bool
    }

    /// Episode actions by kind, every kind named (0 when none), in the
    /// protocol's order.
    private struct ActionCounts: Encodable {
        let counts: [EpisodeAction.Kind: Int]

        init(_ counts: [EpisodeAction.Kind: Int]) { self.counts = counts }

        private struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(_ kind: EpisodeAction.Kind) { stringValue = kind.rawValue }
            init?(stringValue: String) { nil }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for kind in EpisodeAction.Kind.allCases { try container.encode(counts[kind] ?? 0, forKey: Key(kind)) }
        }
    }

    static func syncStatus(_ status: SyncStatus) -> JSONValue {
        JSONValue(
            encoding: SyncStatusJSON(
                server: status.account.server.absoluteString,
                user: status.account.user,
                device: status.account.device,
                api: status.account.flavor.rawValue,
                lastSync: status.lastSync,
                outbox: .init(actions: status.actions, subscriptions: status.subscriptions)
            )
        )
    }

    /// `sync status --json`.
    private struct SyncStatusJSON: Encodable {
        struct Outbox: Encodable {
            var actions: Int
            var subscriptions: Int
        }

        var server: String
        var user: String
        var device: String
        var api: String
        @Nullable var lastSync: Date?
        var outbox: Outbox
    }
}
