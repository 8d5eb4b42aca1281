import ShellKit
import TerminalKit

extension Command {
    static let open = Command(
        CommandSpec(
            "open",
            summary: "load search result N, as 'lookup' does",
            details: "--limit sets how many of the latest episodes to load (1-200, default \(defaultLookupLimit)).",
            arguments: [ArgumentSpec("N", completion: .items(CompletionDomain.searchResults))],
            flags: [FlagSpec("limit", value: .integer(1...200))],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        let results = await context.session.searchResults
        guard !results.isEmpty else { throw .noSearchResults }
        let text = arguments["N"] ?? ""
        guard let number = Int(text), results.indices.contains(number - 1) else {
            throw .usage("no result '\(TerminalText.line(text))' (1-\(results.count))", synopsis: arguments.synopsis)
        }
        try await loadPodcast(
            id: results[number - 1].id,
            limit: arguments.integer("limit") ?? defaultLookupLimit,
            context
        )
        return .proceed
    }
}
