import FeedKit
import ShellKit
import TerminalKit

extension Command {
    static let show = Command(
        CommandSpec(
            "show",
            summary: "show one episode in full, with where its file goes",
            details: "N is the episode's number in the 'episodes' table.",
            arguments: [ArgumentSpec("N", completion: .items(CompletionDomain.episodes))]
        )
    ) { arguments, context throws(ShellError) in
        let podcast = try await context.session.requirePodcast()
        let text = arguments["N"] ?? ""
        guard let number = Int(text), podcast.episodes.indices.contains(number - 1) else {
            let problem: EpisodeSelector.Problem = Int(text) == nil ? .malformed(text) : .outOfRange(text)
            throw .usage(
                TerminalText.line(problem.description(noun: "episode", count: podcast.episodes.count)),
                synopsis: arguments.synopsis
            )
        }
        var episode = podcast.episodes[number - 1]
        let marks = await context.session.marks[episode.id]
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
