import FeedServices
import MCP

extension AssistantTools {
    private static func property(_ kind: JSONSchema.Kind, _ description: String) -> JSONSchema {
        .of(kind, description)
    }

    private static let ref = property(.string, "An episode as P:E: episode E (1 = newest) of subscription P")

    /// Seconds as a number, or a time as text.
    private static func time(_ description: String) -> JSONSchema { .oneOf([.number, .string], description) }

    /// The tool `name`: its arguments, and its answer described by the core type
    /// it encodes (the same the shell's `--json` gives).
    private static func tool(
        _ name: String,
        _ description: String,
        arguments: JSONSchema = .arguments(),
        answer: (some DescribedValue).Type,
        annotations: Tool.Annotations
    ) -> Tool {
        Tool(
            name: name,
            description: description,
            inputSchema: Value(encoded: arguments),
            annotations: annotations,
            outputSchema: Value(encoded: JSONSchema.of(answer))
        )
    }

    /// Every tool, in the order they are listed.
    static let definitions: [Tool] = [
        tool(
            "search",
            "Search the titles, show notes and fetched transcripts of every subscribed podcast. "
                + "Hits give the episode as P:E, its podcast and title, a snippet, and for a transcript hit "
                + "the time in seconds the words were said.",
            arguments: .arguments(
                [
                    "words": property(.string, "Words to find; \"a phrase\", pre* prefixes, OR and NOT work"),
                    "limit": property(.integer, "At most this many hits (1-100, default 10)"),
                ],
                required: ["words"]
            ),
            answer: HitList.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "subscriptions",
            "The subscribed podcasts, as podcasts --json gives them: number P, title, author, feedURL, itunesID, "
                + "episodeCount, newCount, downloadedCount, updated, error and code.",
            answer: SubscriptionList.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "episodes",
            "Episodes of subscription P, newest first, as P:E with date, length, new, played, "
                + "position and downloaded.",
            arguments: .arguments(
                [
                    "podcast": property(.integer, "The subscription's number P, from 'subscriptions'"),
                    "words": property(.string, "Keep only episodes whose titles hold all these words"),
                    "limit": property(.integer, "At most this many (1-500, default 20)"),
                ],
                required: ["podcast"]
            ),
            answer: EpisodeEntries.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "episode",
            "One episode in full: show notes, chapters link, whether a transcript is offered and "
                + "kept, saved position and whether it was played.",
            arguments: .arguments(["ref": ref], required: ["ref"]),
            answer: EpisodeDetail.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "transcript",
            "An episode's transcript as paragraphs with start times and speakers, optionally only "
                + "those said between two times (a paragraph that runs into the span is given whole; fetched "
                + "once from the feed's podcast:transcript), at most `limit` of them an answer: `next`, when "
                + "there are more, is the `after` that asks for them.",
            arguments: .arguments(
                [
                    "ref": ref, "from": time("From this many seconds in, or a time such as 12:34"),
                    "to": time("Up to this many seconds in, or a time such as 1:02:03"),
                    "limit": property(.integer, "At most this many paragraphs (1-1000, default 200)"),
                    "after": property(.integer, "Skip this many paragraphs of the span (the last answer's next)"),
                ],
                required: ["ref"]
            ),
            answer: TranscriptPage.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "new",
            "The new episodes of every subscription, newest first.",
            arguments: .arguments(["limit": property(.integer, "At most this many (1-500, default 50)")]),
            answer: EpisodeEntries.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "queue",
            "The play queue, in order.",
            answer: QueueList.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "playlists",
            "The smart playlists (saved filters of the library), each with its filter and how many episodes it "
                + "holds now.",
            answer: PlaylistList.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "playlist",
            "The episodes a smart playlist holds now, in its order, each with its ref (P:E).",
            arguments: .arguments(
                ["name": property(.string, "The playlist's name (playlists lists them)")],
                required: ["name"]
            ),
            answer: PlaylistEpisodes.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "stats",
            "Listening statistics: time listened, episodes finished, time saved by speed and by "
                + "skipping silence, per podcast.",
            arguments: .arguments(["since": property(.string, "Count from this day, YYYY-MM-DD")]),
            answer: StatsEntry.self,
            annotations: .init(readOnlyHint: true)
        ),
        tool(
            "queue_add",
            "Add an episode at the end of the play queue.",
            arguments: .arguments(["ref": ref], required: ["ref"]),
            answer: QueueAddition.self,
            annotations: .init(readOnlyHint: false, idempotentHint: true)
        ),
        tool(
            "mark",
            "Mark an episode played, unplayed or old (no longer new).",
            arguments: .arguments(
                [
                    "ref": ref,
                    "as": .choice(["played", "unplayed", "old"], "The mark to set"),
                ],
                required: ["ref", "as"]
            ),
            answer: MarkChange.self,
            annotations: .init(readOnlyHint: false, idempotentHint: true)
        ),
        tool(
            "download",
            "Start downloading an episode, as 'get' does; it goes on in the background feedsh when "
                + "this server exits.",
            arguments: .arguments(["ref": ref], required: ["ref"]),
            answer: DownloadStart.self,
            annotations: .init(readOnlyHint: false)
        ),
        tool(
            "subscribe",
            "Subscribe to a podcast by its feed URL and read its whole feed.",
            arguments: .arguments(["url": property(.string, "The feed's http or https URL")], required: ["url"]),
            answer: SubscribeAnswer.self,
            annotations: .init(readOnlyHint: false, idempotentHint: true, openWorldHint: true)
        ),
    ]
}
