import Downloads
import FeedKit
import FeedServices
import Foundation
import PlainText
import TerminalKit

/// An image `image` or `met image` saved: where, from where, and what it is.
struct SavedImage: Sendable {
    let file: URL
    let url: URL
    /// Its bytes, and whether the server answered 304 (the cached copy is current).
    let outcome: DownloadOutcome
    var path: String { file.path }
    let contentType: String?
    /// The format and size read from the file's first bytes.
    let info: ImageInfo?
}

extension Render {
    /// Posts: id, user and title.
    static func posts(_ posts: [Post]) -> Table {
        Table(
            columns: [.init("#", rightAligned: true), .init("User", rightAligned: true), .init("Title")],
            rows: posts.map { [String($0.id), String($0.userId), SafeText.line($0.title)] }
        )
    }

    /// A post in full, with its comments indented under it, wrapped to `width`.
    static func post(_ post: Post, comments: [Comment], width: Int?) -> String {
        var lines = [
            SafeText.line(post.title), "post \(post.id) by user \(post.userId)", "", SafeText.block(post.body),
        ]
        lines += ["", comments.isEmpty ? "No comments." : "Comments (\(comments.count)):"]
        for comment in comments {
            lines.append("")
            lines.append("  \(SafeText.line(comment.name)) <\(SafeText.line(comment.email))>")
            lines += SafeText.block(comment.body).split(separator: "\n", omittingEmptySubsequences: false)
                .map { "    " + $0 }
        }
        let shown = lines.joined(separator: "\n")
        return width.map { TextLayout.wrap(shown, toWidth: $0) } ?? shown
    }

    /// Songs: number, length, whether there is a preview, title · artist · album.
    static func songs(_ tracks: [Track]) -> Table {
        Table(
            columns: [
                .init("#", rightAligned: true), .init("Length", rightAligned: true), .init("Preview"), .init("Song"),
            ],
            rows: tracks.enumerated().map { index, track in
                [
                    String(index + 1), track.duration.map(Formatting.duration) ?? "-",
                    track.previewURL == nil ? "no" : "yes",
                    [track.title, track.artist, track.album ?? ""].filter { !$0.isEmpty }.map(SafeText.line)
                        .joined(separator: " · "),
                ]
            }
        )
    }

    /// The objects a Met search loaded, one that failed said in its row.
    static func metSearch(_ result: MetSearchOutcome) -> Table {
        Table(
            columns: [
                .init("ID", rightAligned: true), .init("Date", maxWidth: 20), .init("Image"),
                .init("Title · Artist · Medium"),
            ],
            rows: result.objects.map { id, fetched in
                switch fetched {
                case .success(let object):
                    let maker = [object.title, object.artist, object.medium].compactMap { $0 }.map(SafeText.line)
                    return [
                        String(id), SafeText.line(object.date ?? "-"), object.hasPublicImage ? "yes" : "no",
                        maker.joined(separator: " · "),
                    ]
                case .failure(let error):
                    return [String(id), "-", "-", "(failed: \(SafeText.line(error.description)))"]
                }
            }
        )
    }

    /// How many more matched than were shown, and how many could not be loaded.
    static func metSearchFooter(_ result: MetSearchOutcome) -> String? {
        let shown = result.objects.count
        let failed = result.objects.filter { if case .failure = $0.result { true } else { false } }.count
        let lines = [
            result.total > shown ? "(\(shown) of \(result.total) objects; --limit N shows more)" : nil,
            failed > 0 ? "\(failed) of \(shown) objects could not be loaded" : nil,
        ].compactMap { $0 }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// Where the image went, then its size, type, pixels and whether it was cached.
    static func savedImage(_ image: SavedImage) -> String {
        var facts = [
            ByteCountText.format(Int(image.outcome.bytes)), SafeText.line(image.contentType ?? "unknown type"),
        ]
        if let info = image.info { facts.append("\(info.width)×\(info.height) \(info.format.rawValue)") }
        if image.outcome.notModified { facts.append("not modified, cached copy") }
        return "\(SafeText.line(image.path))\n\(facts.joined(separator: " · "))"
    }
    /// One Met object in full.
    static func metObject(_ object: MetObject, width: Int? = nil) -> String {
        var lines = [SafeText.line(object.title)]
        func add(_ label: String, _ value: String?) {
            if let value, !value.isEmpty {
                lines.append(TextLayout.pad(label + ":", toWidth: 12) + SafeText.line(value))
            }
        }
        add("id", String(object.id))
        add("artist", object.artist)
        add("date", object.date)
        add("medium", object.medium)
        add("dimensions", object.dimensions)
        add("department", object.department)
        add("culture", object.culture)
        add("accession", object.accessionNumber)
        add("credit", object.creditLine)
        for constituent in object.constituents {
            add(
                "maker",
                [constituent.name, constituent.role.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            )
        }
        if !object.tags.isEmpty { add("tags", object.tags.joined(separator: ", ")) }
        add(
            "image",
            object.primaryImage.map {
                $0.absoluteString + (object.isPublicDomain ? " (public domain)" : " (not public domain)")
            }
                ?? "none"
        )
        if object.additionalImageCount > 0 { add("more", "\(object.additionalImageCount) additional images") }
        add("web", object.objectURL?.absoluteString)
        add("updated", object.metadataDate.map { $0.formatted(.iso8601) })
        let text = lines.joined(separator: "\n")
        return width.map { TextLayout.wrap(text, toWidth: $0) } ?? text
    }
}

extension JSONRender {
    /// `tracks --json`.
    static func songs(_ tracks: [Track]) -> JSONValue {
        JSONValue(
            encoding: tracks.enumerated().map { index, track in
                SongJSON(
                    number: index + 1,
                    id: track.id,
                    title: track.title,
                    artist: track.artist,
                    album: track.album,
                    seconds: track.duration?.components.seconds,
                    previewURL: track.previewURL?.absoluteString
                )
            }
        )
    }

    private struct SongJSON: Encodable {
        var number: Int
        var id: Int64
        var title: String
        var artist: String
        @Nullable var album: String?
        @Nullable var seconds: Int64?
        @Nullable var previewURL: String?
    }

    /// `met search --json`: the match count and each object, or its error.
    static func metSearch(_ result: MetSearchOutcome) -> JSONValue {
        let objects = result.objects.map { id, fetched in
            switch fetched {
            case .success(let object): metObject(object)
            case .failure(let error):
                JSONValue(
                    encoding: MetFailureJSON(
                        id: id,
                        error: .init(code: error.code.description, message: error.description)
                    )
                )
            }
        }
        return JSONValue(encoding: MetSearchJSON(total: result.total, objects: objects))
    }

    private struct MetSearchJSON: Encodable {
        var total: Int
        var objects: [JSONValue]
    }

    /// An object of the search that could not be read.
    private struct MetFailureJSON: Encodable {
        struct Failure: Encodable {
            var code: String
            var message: String
        }

        var id: Int
        var error: Failure
    }

    /// `image --json` and `met image --json`.
    static func savedImage(_ image: SavedImage) -> JSONValue {
        JSONValue(
            encoding: SavedImageJSON(
                path: image.path,
                url: image.url.absoluteString,
                bytes: image.outcome.bytes,
                contentType: image.contentType,
                format: image.info?.format.rawValue,
                width: image.info?.width,
                height: image.info?.height,
                cached: image.outcome.notModified
            )
        )
    }

    private struct SavedImageJSON: Encodable {
        var path: String
        var url: String
        var bytes: Int64
        @Nullable var contentType: String?
        @Nullable var format: String?
        /// Left out when the image could not be measured.
        var width: Int?
        var height: Int?
        var cached: Bool
    }

    static func metObject(_ object: MetObject) -> JSONValue {
        JSONValue(
            encoding: MetObjectJSON(
                id: object.id,
                title: object.title,
                artist: object.artist,
                date: object.date,
                medium: object.medium,
                department: object.department,
                culture: object.culture,
                dimensions: object.dimensions,
                creditLine: object.creditLine,
                accessionNumber: object.accessionNumber,
                isPublicDomain: object.isPublicDomain,
                primaryImage: object.primaryImage?.absoluteString,
                hasPublicImage: object.hasPublicImage,
                constituents: object.constituents.map { .init(name: $0.name, role: $0.role) },
                tags: object.tags,
                objectURL: object.objectURL?.absoluteString,
                metadataDate: object.metadataDate
            )
        )
    }

    private struct MetObjectJSON: Encodable {
        struct Constituent: Encodable {
            var name: String
            @Nullable var role: String?
        }

        var id: Int
        var title: String
        @Nullable var artist: String?
        @Nullable var date: String?
        @Nullable var medium: String?
        @Nullable var department: String?
        @Nullable var culture: String?
        @Nullable var dimensions: String?
        @Nullable var creditLine: String?
        @Nullable var accessionNumber: String?
        var isPublicDomain: Bool
        @Nullable var primaryImage: String?
        var hasPublicImage: Bool
        var constituents: [Constituent]
        var tags: [String]
        @Nullable var objectURL: String?
        @Nullable var metadataDate: Date?
    }
}
