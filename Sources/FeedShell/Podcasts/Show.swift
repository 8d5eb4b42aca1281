import FeedKit
import ShellKit
import TerminalKit

extension Command {
    static let show = Command(
        CommandSpec(
            "show",
            summary: "show one episode in full, with where its file goes",
            details:
                "N is the episode's number in the 'episodes' table; P:E is episode E of subscription P, from anywhere.",
            arguments: [
                ArgumentSpec(
                    "N|P:E",
                    kind: .selector(.oneEpisode, noun: "episode"),
                    completion: .items(CompletionDomain.episodes)
                )
            ]
        )
    ) { arguments, context throws(ShellError) in
        guard let selector = arguments.selector("N|P:E") else { throw .usage(arguments.usage()) }
        let selection = try await context.session.selectEpisodes(selector, synopsis: arguments.synopsis)
        // One episode: the forms the argument takes select no more.
        guard let number = selection.numbers.first else { throw .usage(arguments.usage()) }
        let podcast = selection.podcast
        var episode = podcast.episodes[number - 1]
        let marks = selection.subscription?.marks[episode.id]
        // A library podcast is loaded without descriptions: this one is read now.
        if let marks, episode.description == nil, let library = try? await context.session.library(),
            let summary = try? await library.summary(of: marks.libraryID)
        {
            episode = episode.with(description: summary)
        }
        let status = await context.session.status(of: episode, in: podcast)
        let path = context.session.file(of: episode, in: podcast).final.path
        context.output(
            Render.episode(
                episode,
                number: number,
                podcast: podcast,
                status: status,
                marks: marks,
                path: path,
                width: context.console.width
            ),
            json: JSONRender.episode(
                episode,
                number: number,
                status: status,
                full: true,
                path: path,
                marks: marks,
                podcast: podcast.title
            )
        )
        return .proceed
    }
}
