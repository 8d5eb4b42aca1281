import FeedServices
import Foundation
import Library
import ShellKit

extension Command {
    static let stats = Command(
        CommandSpec(
            "stats",
            summary: "what you listened to: time, episodes finished, time saved, top podcasts",
            details: """
                Adds up the listening history (every play is recorded: the episode, from
                where to where, how long it took, the speed and what skipping silence
                left out): time listened, episodes finished, the time playing faster saved
                and the time skipping silence saved, and the podcasts listened to most.
                --since DATE (YYYY-MM-DD) counts from that day; --by podcast or --by month
                adds a row per podcast or month. 'export history' writes every play.
                """,
            flags: [since.spec, grouping.spec]
        )
    ) { arguments, context throws(ShellError) in
        var from: Date?
        if let text = arguments[since] {
            guard let date = day(text) else { throw .usage(.badDate(text), synopsis: arguments.synopsis) }
            from = date
        }
        let by = arguments[grouping].flatMap(ListeningStats.Grouping.init(rawValue:))
        guard let library = try context.session.libraryIfMade() else {
            return StatsShown(stats: ListeningStats([], by: by), since: from)
        }
        let records = try await libraryCall { () async throws(LibraryError) in try await library.playbacks(since: from)
        }
        return StatsShown(stats: ListeningStats(records, by: by), since: from)
    }

    /// `2026-11-01`, the start of that day here.
    package static func day(_ text: String) -> Date? {
        QueryWords.day(text)
    }

    private static let since = CommandOption<String>("since", placeholder: "DATE")
    private static let grouping = CommandOption<String>(
        "by",
        choices: ListeningStats.Grouping.allCases.map(\.rawValue)
    )
}

/// The listening statistics `stats` shows.
struct StatsShown: CommandResult {
    let stats: ListeningStats
    let since: Date?
}
