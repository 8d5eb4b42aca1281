import FeedKit
import Foundation
import ShellKit

extension Command {
    /// Media the Met's search narrows to (`--medium`); any other text works too.
    static let metMedia = [
        "Paintings", "Sculpture", "Ceramics", "Drawings", "Prints", "Photographs", "Textiles", "Glass", "Metal",
        "Furniture", "Silk", "Wood", "Ivory", "Bronze", "Gold",
    ]

    static let met = Command(
        CommandSpec(
            "met",
            summary: "search the Metropolitan Museum's collection",
            details: """
                'met search' lists matching objects: id, date, whether a public-domain image
                exists, title, artist and medium. It fetches up to --limit objects (default
                10, at most 100), four at a time; an object that fails is reported and the
                others are kept. --medium narrows to a medium (Paintings, Sculpture);
                --has-images to objects with images. A new search cancels one still running.
                'met object ID' shows one object in full; 'met image ID' downloads its
                primary image as 'image' does.
                """,
            subcommands: [
                CommandSpec(
                    "search",
                    summary: "search the collection",
                    arguments: [metQuery.spec],
                    flags: [medium.spec, hasImages.spec, objectLimit.spec]
                ),
                CommandSpec("object", summary: "show one object", arguments: [objectID.spec]),
                CommandSpec("image", summary: "download an object's image", arguments: [objectID.spec]),
            ],
            waitsOnNetwork: true
        )
    ) { arguments, context throws(ShellError) in
        switch arguments.subcommand {
        case "search":
            return try await metSearch(arguments, context)
        default:
            let text = try arguments.required(objectID)
            guard let id = Int(text), id > 0 else {
                throw .usage(.notAnObjectID(text), synopsis: arguments.synopsis)
            }
            let object: MetObject = try await feed { () async throws(FeedError) in
                try await context.session.sources.met.object(id: id)
            }
            if arguments.subcommand == "object" { return MetObjectShown(object: object) }
            guard let url = object.primaryImage else { throw .noImage(objectID: id) }
            return try await fetchImage(url, context: context)
        }
    }

    private static func metSearch(
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) -> MetFound {
        let medium = arguments[Self.medium]
        let hasImages = arguments[Self.hasImages]
        let limit = arguments[objectLimit] ?? 10
        let query = try arguments.required(metQuery)
        let session = context.session
        let outcome = await session.sources.runMetSearch { () async -> Result<MetSearchOutcome, FeedError> in
            // Bound to a local before returning: the shape that -O keeps (see
            // MetClient.objects).
            let result: Result<MetSearchOutcome, FeedError>
            do throws(FeedError) {
                let found = try await session.sources.met.search(query: query, medium: medium, hasImages: hasImages)
                let objects = await session.sources.met.objects(ids: Array(found.objectIDs.prefix(limit)))
                result = .success(MetSearchOutcome(total: found.total, objects: objects))
            } catch {
                result = .failure(error)
            }
            return result
        }
        guard let outcome else {
            throw Task.isCancelled ? .cancelled("search") : .superseded("search")
        }
        let result: MetSearchOutcome
        switch outcome {
        case .success(let value): result = value
        case .failure(let error): throw .feed(error)
        }
        return MetFound(query: query, outcome: result)
    }
}

/// What `met search` for `query` found.
struct MetFound: CommandResult {
    let query: String
    let outcome: MetSearchOutcome
}

/// One object of the Met's collection, as `met object` shows it.
struct MetObjectShown: CommandResult {
    let object: MetObject
}

/// What a `met search` found: the match count and the objects fetched, each loaded
/// or failed on its own.
struct MetSearchOutcome: Sendable {
    let total: Int
    let objects: [(id: Int, result: Result<MetObject, FeedError>)]
}

extension Command {
    private static let metQuery = CommandArgument<String>("QUERY", rest: true)
    private static let medium = CommandOption<String>("medium", placeholder: "M", completion: .words(metMedia))
    private static let hasImages = CommandFlag("has-images")
    private static let objectLimit = CommandOption<Int>("limit", range: 1...100)
    // Text, so that a word that is no object id is named as such.
    private static let objectID = CommandArgument<String>("ID")
}
