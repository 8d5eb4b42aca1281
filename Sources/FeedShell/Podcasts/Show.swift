import FeedKit
import FeedServices
import ShellKit

extension Command {
    static let show = Command(
        CommandSpec(
            "show",
            summary: "show one episode in full, with where its file goes",
            details:
                "N is the episode's number in the 'episodes' table; P:E is episode E of subscription P, from anywhere.",
            arguments: [oneEpisodeArgument.spec]
        )
    ) { arguments, context throws(ShellError) in
        let (selected, number, selection) = try await oneEpisode(arguments, context)
        let podcast = selection.podcast
        var episode = selected
        let marks = selection.subscription?.marks[episode.id]
        // A library podcast is loaded without descriptions: this one is read now.
        if let marks, episode.description == nil, let library = try? context.session.library(),
            let summary = try? await library.summary(of: marks.libraryID)
        {
            episode = episode.with(description: summary)
        }
        let status = await context.services.downloads.status(of: episode, in: podcast)
        let path = context.services.downloads.file(of: episode, in: podcast).final.path
        return ShownEpisode(
            episode: episode,
            number: number,
            podcast: podcast,
            status: status,
            marks: marks,
            path: path,
            ref: selection.subscription.map { "\($0.podcast.number):\(number)" }
        )
    }
}

/// One episode as `show` gives it in full: where it is in its podcast's list, its
/// download status and library marks, and where its file goes.
struct ShownEpisode: CommandResult {
    let episode: Episode
    let number: Int
    let podcast: Podcast
    let status: EpisodeStatus?
    let marks: EpisodeMarks?
    let path: String
    /// `P:E` of a subscription's episode.
    var ref: String?
}

extension Command {
    /// The argument of commands about one episode: N of the loaded list, or P:E.
    static let oneEpisodeArgument = CommandArgument<Selector>(
        "N|P:E",
        forms: .oneEpisode,
        noun: "episode",
        completion: .items(CompletionDomain.episodes)
    )

    /// The one episode ``oneEpisodeArgument`` names: the episode, its number in
    /// its list, and the selection it came from.
    static func oneEpisode(
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) -> (episode: Episode, number: Int, selection: Session.EpisodeSelection) {
        let selector = try arguments.required(oneEpisodeArgument)
        let selection = try await context.session.selectEpisodes(selector, synopsis: arguments.synopsis)
        // One episode: the forms the argument takes select no more.
        guard let number = selection.numbers.first else { throw .usage(arguments.usage()) }
        return (selection.podcast.episodes[number - 1], number, selection)
    }
}
