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
            throw .usage(
                "no episode '\(TerminalText.line(text))' (1-\(podcast.episodes.count))",
                synopsis: arguments.synopsis
            )
        }
        let episode = podcast.episodes[number - 1]
        let status = await context.session.status(of: episode, in: podcast)
        let path = context.session.file(of: episode, in: podcast).final.path
        let marks = await context.session.marks[episode.id]
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
