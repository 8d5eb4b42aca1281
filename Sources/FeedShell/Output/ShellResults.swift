import FeedKit
import FeedServices
import HTTPSupport
import PlainText
import ShellKit
import TerminalKit
import WebBasics

extension About {
    func text(on page: Page) -> String? {
        let count = subscriptions.map { Formatting.count($0, "subscription") } ?? "not made yet"
        let rate = rateLimit.map { "at most \(ByteSize.format($0))/s" } ?? "no rate cap"
        let found = playerPath ?? "not found in PATH"
        return SafeLine.lines([
            "feedsh \(FeedKitVersion.current) (User-Agent: \(FeedKitVersion.userAgent))",
            "library    \(library) (\(count))",
            "downloads  \(downloads) (\(engine), \(maxConcurrent) at once, \(rate))",
            "player     \(player): \(found)",
        ])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(FeedKitVersion.current, forKey: .version)
        try container.encode(FeedKitVersion.userAgent, forKey: .userAgent)
        try container.encode(library, forKey: .library)
        try container.encode(subscriptions, forKey: .subscriptions)
        try container.encode(downloads, forKey: .downloadDirectory)
        try container.encode(engine, forKey: .engine)
        try container.encode(maxConcurrent, forKey: .maxConcurrent)
        try container.encode(rateLimit, forKey: .rateLimit)
        try container.encode(player, forKey: .player)
        try container.encode(playerPath, forKey: .playerPath)
    }

    private enum CodingKeys: CodingKey {
        case version, userAgent, library, subscriptions, downloadDirectory, engine, maxConcurrent, rateLimit
        case player, playerPath
    }
}

extension HelpPage {
    func text(on page: Page) -> String? {
        switch self {
        case .overview(let specs): HelpText.overview(specs, width: page.width)
        case .command(let spec): HelpText.command(spec, width: page.width)
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .overview(let specs):
            try specs.map { CommandJSON(name: $0.name, synopsis: $0.synopsis, summary: $0.summary) }.encode(to: encoder)
        case .command(let spec):
            try CommandJSON(
                name: spec.name,
                synopsis: spec.synopsis,
                summary: spec.summary,
                details: spec.details,
                aliases: spec.aliases
            ).encode(to: encoder)
        }
    }
}

/// `help --json`: a command, with its details and aliases when one was asked for.
private struct CommandJSON: Encodable {
    var name: String
    var synopsis: String
    var summary: String
    var details: String?
    var aliases: [String]?
}

extension HistoryListing {
    func text(on page: Page) -> String? {
        guard let entries else { return "history is kept by the interactive shell only" }
        guard !entries.isEmpty else { return "no history yet" }
        let width = String(entries.count).count
        return entries.enumerated().map { index, entry in
            String(repeating: " ", count: width - String(index + 1).count) + "\(index + 1)  \(entry)"
        }.joined(separator: "\n")
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for entry in entries ?? [] { try container.encode(entry) }
    }
}

extension Render {
    /// Asked by `quit` while downloads run; nil (the question is moot) when none do.
    static func quitQuestion(running: Int) -> String {
        let running = running == 1 ? "1 download is" : "\(running) downloads are"
        return "\(running) running. Continue in the background, pause, or stay? [b/p/S] "
    }
}
