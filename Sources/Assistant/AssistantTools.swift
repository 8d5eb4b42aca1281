import Downloads
import FeedKit
import FeedServices
import Foundation
import HTTPSupport
import Library
import MCP
import PlainText
import WebBasics

/// The tools `feedsh mcp` offers an assistant, over the same services the shell
/// calls: each takes typed arguments, returns structured JSON with a short text,
/// and refuses a bad argument by name. Nothing returned carries terminal escapes
/// or feed credentials.
public struct AssistantTools: Sendable {
    let services: Services
    /// `--allow-changes`: the tools that change the library are listed and run.
    let allowChanges: Bool

    public init(services: Services, allowChanges: Bool) {
        self.services = services
        self.allowChanges = allowChanges
    }

    /// A tool's failure: said to the assistant as a tool error.
    struct Refusal: Error {
        let message: String
        init(_ message: String) { self.message = SafeText.line(message) }

        static func argument(_ name: String, _ problem: String) -> Refusal {
            Refusal("argument '\(name)': \(problem)")
        }
    }

    static let readOnly = [
        "search", "subscriptions", "episodes", "episode", "transcript", "new", "queue", "playlists", "playlist",
        "stats",
    ]
    static let changing = ["queue_add", "mark", "download", "subscribe"]

    /// The tools listed: the read-only ones, and with `--allow-changes` the rest.
    public var list: [Tool] {
        Self.definitions.filter { allowChanges || Self.readOnly.contains($0.name) }
    }

    /// Runs tool `name`; a refusal or failure is a tool error naming what was wrong.
    public func call(_ name: String, _ arguments: [String: Value]) async -> CallTool.Result {
        do {
            guard Self.readOnly.contains(name) || Self.changing.contains(name) else {
                throw Refusal("no tool '\(name)'")
            }
            guard allowChanges || Self.readOnly.contains(name) else {
                throw Refusal("'\(name)' changes the library: feedsh mcp refuses it without --allow-changes")
            }
            let (answer, text) = try await run(name, Arguments(values: arguments))
            return try CallTool.Result(
                content: [.text(text: text, annotations: nil, _meta: nil)],
                structuredContent: Value(encoded: answer),
                isError: false
            )
        } catch let refusal as Refusal {
            return CallTool.Result(content: [.text(text: refusal.message, annotations: nil, _meta: nil)], isError: true)
        } catch {
            return CallTool.Result(
                content: [.text(text: SafeText.line("\(error)"), annotations: nil, _meta: nil)],
                isError: true
            )
        }
    }

    /// The arguments of one call, read with the checks each tool needs.
    struct Arguments {
        let values: [String: Value]

        func string(_ name: String) throws -> String? {
            guard let value = values[name], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw Refusal.argument(name, "must be a string") }
            // SQLite and the shell's words end at a NUL: it is refused, named.
            guard !text.contains("\u{0}") else { throw Refusal.argument(name, "must not hold a NUL character") }
            return text
        }

        func required(_ name: String) throws -> String {
            guard let text = try string(name), !text.isEmpty else { throw Refusal.argument(name, "is required") }
            return text
        }

        func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
            guard let value = values[name], !value.isNull else { return nil }
            let number = value.intValue ?? value.doubleValue.flatMap { $0 == $0.rounded() ? Int(exactly: $0) : nil }
            guard let number, range.contains(number) else {
                throw Refusal.argument(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }

        func seconds(_ name: String) throws -> Double? {
            guard let value = values[name], !value.isNull else { return nil }
            if let number = value.doubleValue ?? value.intValue.map(Double.init), number >= 0 { return number }
            if let text = value.stringValue, let seconds = ListeningTime.seconds(text) { return seconds }
            throw Refusal.argument(name, "must be seconds or a time such as 12:34")
        }
    }

    /// `1 hit`, `3 hits`.
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    /// A tool's answer: a value of the core's vocabulary (its `outputSchema` is
    /// derived from the same type) and a line for people.
    typealias Answer = (value: any Encodable & Sendable, text: String)

    private func run(_ name: String, _ arguments: Arguments) async throws -> Answer {
        switch name {
        case "search": return try await search(arguments)
        case "subscriptions": return try await subscriptions()
        case "episodes": return try await episodes(arguments)
        case "episode": return try await episode(arguments)
        case "transcript": return try await transcript(arguments)
        case "new": return try await newEpisodes(arguments)
        case "queue": return try await queue()
        case "playlists": return try await playlists()
        case "playlist": return try await playlist(arguments)
        case "stats": return try await stats(arguments)
        case "queue_add": return try await queueAdd(arguments)
        case "mark": return try await mark(arguments)
        case "download": return try await download(arguments)
        default: return try await subscribe(arguments)
        }
    }

    /// The library, or the refusal that says there is none yet.
    private func library() throws -> Library {
        guard let library = try services.library.openIfExists() else {
            throw Refusal("no library yet: subscribe to a podcast first")
        }
        return library
    }

    /// `P:E` as `episodes` numbers them (the one parser, ``PlainText/ListedAddress``),
    /// resolved to the library's episode in one read (the core's, as the web page's).
    private func resolve(_ text: String, argument: String = "ref") async throws -> ResolvedLibraryEpisode {
        guard let address = ListedAddress(text) else {
            throw Refusal.argument(argument, "must be P:E, episode E of subscription P (such as 2:1), not '\(text)'")
        }
        do {
            return try await services.resolve(address)
        } catch AddressProblem.noLibrary {
            throw Refusal("\(AddressProblem.noLibrary)")
        } catch let problem as AddressProblem {
            throw Refusal.argument(argument, problem.description)
        }
    }

    private func search(_ arguments: Arguments) async throws -> Answer {
        let words = try arguments.required("words")
        let limit = try arguments.int("limit", in: 1...100) ?? 10
        // The same value as `find --json`.
        let hits: [FindHitEntry]
        do {
            hits = try await services.find(words, limit: limit)
        } catch let problem as FindProblem {
            throw Refusal.argument("words", problem.description)
        }
        return (HitList(hits), "\(Self.count(hits.count, "hit")) for '\(SafeText.line(words))'")
    }

    /// The same value as `podcasts --json`: ``FeedServices/SubscriptionEntry``.
    private func subscriptions() async throws -> Answer {
        let entries = try await services.subscriptionEntries()
        return (SubscriptionList(entries), "\(entries.count) subscriptions")
    }

    /// An episode as every front end gives it (``FeedServices/EpisodeEntry``):
    /// the same value as `episodes --json`, numbered `number`. Nil for an episode
    /// whose enclosure URL cannot be used.
    private func entry(
        _ episode: StoredEpisode,
        ref: String,
        number: EpisodeEntry.Number,
        podcast: StoredPodcast,
        description: String?? = nil
    ) async -> EpisodeEntry? {
        await services.downloads.entry(of: episode, in: podcast, number: number, ref: ref, description: description)
    }

    private func episodes(_ arguments: Arguments) async throws -> Answer {
        guard let number = try arguments.int("podcast", in: 1...Int(Int32.max)) else {
            throw Refusal.argument("podcast", "is required: a subscription's number from 'subscriptions'")
        }
        let words = try arguments.string("words")?.lowercased().split(separator: " ").map(String.init) ?? []
        let limit = try arguments.int("limit", in: 1...500) ?? 20
        let library = try library()
        guard let podcast = try await library.podcast(Int64(number)) else {
            throw Refusal.argument("podcast", "there is no subscription \(number)")
        }
        let all = try await library.episodes(of: Int64(number))
        var items: [EpisodeEntry] = []
        for (index, episode) in all.enumerated() where items.count < limit {
            let title = episode.title.lowercased()
            guard words.allSatisfy({ title.contains($0) }),
                let item = await entry(
                    episode,
                    ref: "\(number):\(index + 1)",
                    number: .place(index + 1),
                    podcast: podcast
                )
            else { continue }
            items.append(item)
        }
        return (
            EpisodeEntries(items),
            "\(items.count) of \(all.count) episodes of \(SafeText.line(podcast.title))"
        )
    }

    private func episode(_ arguments: Arguments) async throws -> Answer {
        let resolved = try await resolve(try arguments.required("ref"))
        // The same value as `show --json`, and whether a transcript is kept.
        guard let detail = try await services.detail(of: resolved) else {
            throw Refusal("\(resolved.ref) has no usable audio address")
        }
        return (detail, "\(resolved.ref) \(SafeText.line(resolved.stored.title))")
    }

    private func transcript(_ arguments: Arguments) async throws -> Answer {
        let ref = try arguments.required("ref")
        let from = try arguments.seconds("from")
        let to = try arguments.seconds("to")
        if let from, let to, to < from { throw Refusal.argument("to", "must not be before 'from'") }
        let resolved = try await resolve(ref)
        let stored = resolved.stored
        guard !stored.transcriptList.isEmpty else { throw Refusal("\(ref) has no transcript (its feed offers none)") }
        let kept = try await services.listening.transcript(
            of: resolved.episodeID,
            offered: stored.transcriptList,
            title: stored.title
        )
        // The paragraphs said between the two times: each runs from its start to
        // the next one's.
        let all = kept.paragraphs
        let paragraphs = all.indices.filter { index in
            guard let start = all[index].start else { return from == nil && to == nil }
            let end = all[(index + 1)...].lazy.compactMap(\.start).first ?? .infinity
            return start <= (to ?? .infinity) && end > (from ?? 0)
        }.map { all[$0] }
        // A page at a time: 160,000 turns were once one 7.9 MB answer.
        let limit = try arguments.int("limit", in: 1...1000) ?? 200
        let after = try arguments.int("after", in: 0...Int(Int32.max)) ?? 0
        let page = paragraphs.dropFirst(after).prefix(limit)
        let items = page.map(TranscriptPage.Paragraph.init)
        let next = after + items.count < paragraphs.count ? after + items.count : nil
        return (
            TranscriptPage(ref: resolved.ref, paragraphs: items, total: paragraphs.count, next: next),
            "\(Self.count(items.count, "paragraph")) of \(paragraphs.count) of \(ref)"
        )
    }

    private func newEpisodes(_ arguments: Arguments) async throws -> Answer {
        let limit = try arguments.int("limit", in: 1...500) ?? 50
        guard let library = try services.library.openIfExists() else {
            return (EpisodeEntries([]), "none new")
        }
        let fresh = Array(try await library.newEpisodes().prefix(limit))
        let refs = try await library.resolve(
            fresh.compactMap { item in
                item.episode.id.map { EpisodeRef(podcast: item.podcast.id ?? 0, episode: $0) }
            }
        )
        var items: [EpisodeEntry] = []
        for (index, resolved) in refs.enumerated() {
            let item = await entry(
                resolved.stored,
                ref: resolved.ref,
                number: .name("n\(index + 1)"),
                podcast: resolved.podcast
            )
            if let item { items.append(item) }
        }
        return (EpisodeEntries(items), "\(items.count) new episodes")
    }

    private func queue() async throws -> Answer {
        // The same value as `queue --json`.
        let items = try await services.library.openIfExists()?.queue().map(QueueItemEntry.init) ?? []
        return (QueueList(items), "\(items.count) in the queue")
    }

    /// The same value as `playlists --json`.
    private func playlists() async throws -> Answer {
        let playlists = try await services.playlists()
        return (PlaylistList(playlists), "\(Self.count(playlists.count, "playlist"))")
    }

    /// The same value as `playlist NAME --json`.
    private func playlist(_ arguments: Arguments) async throws -> Answer {
        let name = try arguments.required("name")
        do {
            let value = try await services.playlistEpisodes(named: name)
            return (value, "\(Self.count(value.episodes.count, "episode")) in \(SafeText.line(value.name))")
        } catch let problem as PlaylistProblem {
            throw Refusal.argument("name", problem.description)
        }
    }

    private func stats(_ arguments: Arguments) async throws -> Answer {
        var since: Date?
        if let text = try arguments.string("since") {
            guard let day = QueryWords.day(text) else { throw Refusal.argument("since", "must be a date YYYY-MM-DD") }
            since = day
        }
        let records = try await services.library.openIfExists()?.playbacks(since: since) ?? []
        let stats = ListeningStats(records, by: .podcast)
        // The same value as `stats --since DATE --json`.
        let value = StatsEntry(stats, since: since == nil ? nil : try arguments.string("since"))
        return (
            value,
            "\(stats.totals.plays) plays, \(SpanText.listened(stats.totals.listened)) listened"
        )
    }

    private func queueAdd(_ arguments: Arguments) async throws -> Answer {
        let resolved = try await resolve(try arguments.required("ref"))
        let added = try await library().enqueue([resolved.episodeID])
        let count = try await library().queue().count
        return (
            QueueAddition(added: added > 0, queued: count),
            added > 0 ? "queued \(resolved.ref)" : "\(resolved.ref) was queued already"
        )
    }

    private func mark(_ arguments: Arguments) async throws -> Answer {
        let resolved = try await resolve(try arguments.required("ref"))
        let word = try arguments.required("as")
        guard let mark = Library.Mark(rawValue: word) else {
            throw Refusal.argument("as", "must be played, unplayed or old, not '\(word)'")
        }
        try await library().mark([resolved.episodeID], mark)
        return (MarkChange(ref: resolved.ref, mark: word), "marked \(resolved.ref) \(word)")
    }

    private func download(_ arguments: Arguments) async throws -> Answer {
        let resolved = try await resolve(try arguments.required("ref"))
        let state: DownloadStart.State?
        do throws(LibraryError) {
            state = try await services.downloads.start(resolved.episodeRef)
        } catch {
            throw Refusal("\(error)")
        }
        guard let state else { throw Refusal.argument("ref", "no episode \(resolved.ref)") }
        return (
            DownloadStart(ref: resolved.ref, state: state),
            state == .completed
                ? "\(resolved.ref) is downloaded already"
                : "downloading \(resolved.ref) \(SafeText.line(resolved.stored.title)); it goes on in the background "
                    + "feedsh when this server exits"
        )
    }

    private func subscribe(_ arguments: Arguments) async throws -> Answer {
        let text = try arguments.required("url")
        guard let given = URL(string: text), given.scheme == "http" || given.scheme == "https", given.host != nil
        else {
            throw Refusal.argument("url", "must be an http or https feed URL")
        }
        // An address no user types for a podcast (link-local, where clouds answer
        // with their secrets; multicast...) is refused, as sync refuses it.
        if let refusal = FeedAddress.refusal(text) { throw Refusal.argument("url", "is \(refusal)") }
        // A private feed's `user:password@`, kept apart from the URL as the shell
        // keeps it, and sent to the feed's own host only.
        let url: URL
        let credentials: FeedCredentials?
        do throws(FeedCredentialsError) {
            (url, credentials) = try FeedCredentials.split(given, written: text)
        } catch {
            throw Refusal.argument("url", error.description)
        }
        let library: Library
        do throws(LibraryError) {
            library = try services.library.open()
        } catch {
            throw Refusal("\(error)")
        }
        let updater = FeedUpdater(library: library, client: services.sources.feeds)
        let (stored, created, result) = try await updater.subscribe(
            feedURL: url,
            title: url.host ?? url.absoluteString,
            credentials: credentials
        )
        guard let podcast = stored else {
            if case .failed(let reason) = result.status {
                throw Refusal("cannot subscribe to \(url.redacted): \(reason)")
            }
            throw Refusal("subscribing to \(url.redacted) was interrupted; nothing was stored")
        }
        let count = try await library.episodeIDs(of: podcast.id ?? -1).count
        return (
            SubscribeAnswer(number: podcast.number, title: podcast.title, created: created, episodes: count),
            (created ? "subscribed to " : "already subscribed to ")
                + "\(podcast.number) \(SafeText.line(podcast.title))"
        )
    }
}

extension Value {
    /// An `Encodable` value as MCP content, encoded as `--json` and the web page
    /// encode it (``FeedServices/JSONValueEncoder``) and taken over member by
    /// member, with no round trip through JSON text.
    init(encoded value: some Encodable) {
        self.init(JSONValue(encoding: value))
    }

    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .int(Int(int))
        // JSON has no infinity: written as null, as `--json` writes it.
        case .double(let double): self = double.isFinite ? .double(double) : .null
        case .string(let string): self = .string(string)
        case .array(let elements): self = .array(elements.map(Value.init))
        case .object(let members):
            self = .object(Dictionary(members.map { ($0.key, Value($0.value)) }) { _, last in last })
        }
    }
}
