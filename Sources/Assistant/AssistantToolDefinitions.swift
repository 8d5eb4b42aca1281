import MCP

extension AssistantTools {
    /// A JSON Schema object with these properties, `required` naming those it needs.
    private static func schema(_ properties: [String: Value], required: [String] = []) -> Value {
        .object([
            "type": .string("object"), "properties": .object(properties),
            "required": .array(required.map { .string($0) }), "additionalProperties": .bool(false),
        ])
    }

    private static func property(_ type: String, _ description: String) -> Value {
        .object(["type": .string(type), "description": .string(description)])
    }

    private static let ref = property("string", "An episode as P:E: episode E (1 = newest) of subscription P")

    /// Seconds as a number, or a time as text.
    private static func time(_ description: String) -> Value {
        .object(["type": .array([.string("number"), .string("string")]), "description": .string(description)])
    }

    /// Every tool, in the order they are listed.
    static let definitions: [Tool] = [
        Tool(
            name: "search",
            description: "Search the titles, show notes and fetched transcripts of every subscribed podcast. "
                + "Hits give the episode as P:E, its podcast and title, a snippet, and for a transcript hit "
                + "the time in seconds the words were said.",
            inputSchema: schema(
                [
                    "words": property("string", "Words to find; \"a phrase\", pre* prefixes, OR and NOT work"),
                    "limit": property("integer", "At most this many hits (1-100, default 10)"),
                ],
                required: ["words"]
            ),
            annotations: .init(readOnlyHint: true)
        ),
        Tool(
            name: "subscriptions",
            description:
                "The subscribed podcasts, as podcasts --json gives them: number P, title, author, feedURL, itunesID, "
                + "episodeCount, newCount, downloadedCount, updated, error and code.",
            inputSchema: schema([:]),
            annotations: .init(readOnlyHint: true)
        ),
        Tool(
            name: "episodes",
            description: "Episodes of subscription P, newest first, as P:E with date, length, new, played, "
                + "position and downloaded.",
            inputSchema: schema(
                [
                    "podcast": property("integer", "The subscription's number P, from 'subscriptions'"),
                    "words": property("string", "Keep only episodes whose titles hold all these words"),
                    "limit": property("integer", "At most this many (1-500, default 20)"),
                ],
                required: ["podcast"]
            ),
            annotations: .init(readOnlyHint: true)
        ),
        Tool(
            name: "episode",
            description: "One episode in full: show notes, chapters link, whether a transcript is offered and "
                + "kept, saved position and whether it was played.",
            inputSchema: schema(["ref": ref], required: ["ref"]),
            annotations: .init(readOnlyHint: true)
        ),
        Tool(
            name: "transcript",
            description: "An episode's transcript as paragraphs with start times and speakers, optionally only "
                + "those said between two times (a paragraph that runs into the span is given whole; fetched "
                + "once from the feed's podcast:transcript), at most `limit` of them an answer: `next`, when "
                + "there are more, is the `after` that asks for them.",
            inputSchema: schema(
                [
                    "ref": ref, "from": time("From this many seconds in, or a time such as 12:34"),
                    "to": time("Up to this many seconds in, or a time such as 1:02:03"),
                    "limit": property("integer", "At most this many paragraphs (1-1000, default 200)"),
                    "after": property("integer", "Skip this many paragraphs of the span (the last answer's next)"),
                ],
                required: ["ref"]
            ),
            annotations: .init(readOnlyHint: true)
        ),
        Tool(
            name: "new",
            description: "The new episodes of every subscription, newest first.",
            inputSchema: schema(["limit": property("integer", "At most this many (1-500, default 50)")]),
            annotations: .init(readOnlyHint: true)
        ),
        Tool(
            name: "queue",
            description: "The play queue, in order.",
            inputSchema: schema([:]),
            annotations: .init(readOnlyHint: true)
        ),
        Tool(
            name: "stats",
            description: "Listening statistics: time listened, episodes finished, time saved by speed and by "
                + "skipping silence, per podcast.",
            inputSchema: schema(["since": property("string", "Count from this day, YYYY-MM-DD")]),
            annotations: .init(readOnlyHint: true)
        ),
        Tool(
            name: "queue_add",
            description: "Add an episode at the end of the play queue.",
            inputSchema: schema(["ref": ref], required: ["ref"]),
            annotations: .init(readOnlyHint: false, idempotentHint: true)
        ),
        Tool(
            name: "mark",
            description: "Mark an episode played, unplayed or old (no longer new).",
            inputSchema: schema(
                [
                    "ref": ref,
                    "as": .object([
                        "type": .string("string"),
                        "enum": .array([.string("played"), .string("unplayed"), .string("old")]),
                    ]),
                ],
                required: ["ref", "as"]
            ),
            annotations: .init(readOnlyHint: false, idempotentHint: true)
        ),
        Tool(
            name: "download",
            description: "Start downloading an episode, as 'get' does; it goes on in the background feedsh when "
                + "this server exits.",
            inputSchema: schema(["ref": ref], required: ["ref"]),
            annotations: .init(readOnlyHint: false)
        ),
        Tool(
            name: "subscribe",
            description: "Subscribe to a podcast by its feed URL and read its whole feed.",
            inputSchema: schema(["url": property("string", "The feed's http or https URL")], required: ["url"]),
            annotations: .init(readOnlyHint: false, idempotentHint: true, openWorldHint: true)
        ),
    ]
}
