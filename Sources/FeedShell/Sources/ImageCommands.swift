import Downloads
import FeedKit
import FeedServices
import Foundation
import ShellKit

extension Command {
    static let image = Command(
        CommandSpec(
            "image",
            summary: "download an image into the cache and describe it",
            details: """
                Downloads in the foreground, with percentage progress, into
                $XDG_CACHE_HOME/feedsh/images (--cache-dir). A copy the server says has not
                changed (304) is reused. Prints the path, size, content type and, for PNG,
                JPEG, GIF and WebP, the pixel size. A body that is not an image is an error
                and leaves nothing behind. Ctrl-C cancels.
                """,
            arguments: [imageURL.spec]
        )
    ) { arguments, context throws(ShellError) in
        let text = try arguments.required(imageURL)
        guard let url = URL(httpString: text) else {
            throw .usage(.notAnHTTPURL(text), synopsis: arguments.synopsis)
        }
        return try await fetchImage(url, context: context)
    }

    static let artwork = Command(
        CommandSpec("artwork", summary: "download the loaded podcast's artwork, as 'image' does")
    ) { _, context throws(ShellError) in
        let podcast = try await context.session.requirePodcast()
        guard let url = podcast.artworkURL else { throw .noArtwork(podcast: podcast.title) }
        return try await fetchImage(url, context: context)
    }

    /// Fetches `url` into the image cache through the download engine and prints
    /// what it got. Any failure, Ctrl-C included, leaves nothing in the cache.
    static func fetchImage(_ url: URL, context: CommandContext) async throws(ShellError) -> SavedImage {
        let cache = context.session.sources.images
        let file = cache.file(for: url)
        let cached = cache.cached(url)
        let request = DownloadRequest(
            id: DownloadID("image-" + file.final.lastPathComponent),
            url: url,
            file: file,
            cached: cached?.validators,
            requiredType: "image/"
        )
        let label = DownloadLabel(number: url.absoluteString, title: "")
        let outcome: DownloadOutcome
        do {
            outcome = try await context.services.downloads.fetch(request) { context.report(.download(label, $0)) }
            context.report(.progressEnded)
        } catch {
            context.report(.progressEnded)
            if let error = error as? DownloadError {
                // Another process's download of the same image is left alone.
                if !error.isLocked { cache.remove(file) }
                throw .download(error)
            }
            cache.remove(file)
            throw .cancelled("image download", note: "nothing was kept")
        }
        let contentType = outcome.notModified ? cached?.contentType : outcome.contentType
        let info = readImageInfo(file.final)
        if let expected = contentType.flatMap(ImageInfo.Format.init(contentType:)), info?.format != expected {
            cache.remove(file)
            throw .notTheImage(url: url.absoluteString, contentType: contentType ?? "", format: expected.rawValue)
        }
        do {
            try cache.save(
                .init(url: url.absoluteString, validators: outcome.validators, contentType: contentType),
                for: file
            )
        } catch {
            throw .unwritable(cache.directory.path, reason: describeFileError(error))
        }
        return SavedImage(file: file.final, url: url, outcome: outcome, contentType: contentType, info: info)
    }

    /// The format and size from the first bytes of a file.
    private static func readImageInfo(_ url: URL) -> ImageInfo? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: ImageInfo.headerLimit) else { return nil }
        return ImageInfo(header: Array(data))
    }
}

extension Command {
    private static let imageURL = CommandArgument<String>("URL")
}
