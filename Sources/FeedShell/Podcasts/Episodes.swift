import FeedKit
import FeedServices
import ShellKit

extension Command {
    static let episodes = Command(
        CommandSpec(
            "episodes",
            summary: "list the loaded podcast's episodes",
            details: """
                A numbered table (1 = newest): number, release date, length, download
                status and title. WORDS keep the episodes whose titles contain them all
                (in any case); --limit N shows the first N. The numbers stay those of the
                whole list, for 'get' and 'show'.
                """,
            arguments: [titleWords.spec],
            flags: [episodesLimit.spec]
        )
    ) { arguments, context throws(ShellError) in
        let podcast = try await context.session.requirePodcast()
        let marks = await context.session.marks
        let words = (arguments[titleWords] ?? "").lowercased().split(separator: " ").map(String.init)
        // Without WORDS no title is read: a subscription's episodes come from the
        // library a page at a time, and only the shown ones need to.
        var numbers = podcast.episodes.indices.map { $0 + 1 }
        if !words.isEmpty {
            numbers = numbers.filter { number in
                let title = podcast.episodes[number - 1].title.lowercased()
                return words.allSatisfy { title.contains($0) }
            }
        }
        let matching = numbers.count
        if let limit = arguments[episodesLimit] { numbers = Array(numbers.prefix(limit)) }
        let statuses = await context.session.statuses(of: numbers)
        return EpisodeTable(
            podcast: podcast,
            numbers: numbers,
            statuses: statuses,
            marks: marks,
            words: words,
            matching: matching,
            subscriptionNumber: await context.session.subscription?.podcast.number
        )
    }
}

/// The episodes `episodes` lists: their numbers in the podcast's whole list, of
/// the `matching` ones whose titles contain every one of `words`.
struct EpisodeTable: CommandResult {
    let podcast: Podcast
    let numbers: [Int]
    let statuses: [Int64: EpisodeStatus]
    let marks: EpisodeMarksLookup
    let words: [String]
    let matching: Int
    /// P of the loaded subscription, for each episode's `P:E`.
    var subscriptionNumber: Int?
}

extension Command {
    private static let titleWords = CommandArgument<String>("WORDS", optional: true, rest: true)
    private static let episodesLimit = CommandOption<Int>("limit", range: 1...100_000)
}
