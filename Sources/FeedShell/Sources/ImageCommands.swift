import Downloads
import FeedKit
import Foundation
import PlainText
import ShellKit
import Synchronization
import TerminalKit

/// Percentage progress of a foreground download on standard error: one line
/// redrawn in place on a terminal (`45.0% of 1.2 MB`), a line every 10 % otherwise,
/// and with `--json` progress events as background downloads report them.
final class InlineProgress: Sendable {
    private let console: Console
    private let label: DownloadLabel
    /// The last tenth printed (lines) or whether a line is drawn (terminal).
    private let state = Mutex<(decile: Int, drawn: Bool)>((0, false))
    /// Writes the JSON events, at most one per whole percent.
    private let json: Mutex<DownloadReporter>

    init(console: Console, label: DownloadLabel) {
        self.console = console
        self.label = label
        json = Mutex(DownloadReporter(console: console))
    }

    func report(_ event: DownloadEvent) {
        if console.json {
            if case .progress = event { json.withLock { $0.report(event, label: label) } }
            return
        }
        guard case .progress(_, let progress) = event, let total = progress.total, total > 0 else { return }
        let text = "\(Formatting.precisePercent(progress.bytes, of: total)) of \(ByteCountText.format(Int(total)))"
        if console.progressLine(text) {
            state.withLock { $0.drawn = true }
            return
        }
        let decile = Int(Double(progress.bytes) / Double(total) * 10)
        let due = state.withLock { state in
            guard decile > state.decile else { return false }
            state.decile = decile
            return true
        }
        if due { console.printError(text) }
    }

    /// Clears the line drawn on a terminal, before the result is printed.
    func finish() {
        if state.withLock({ $0.drawn }) { console.endProgressLine() }
    }
}

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
            throw .usage("'\(text)' is not an http or https URL", synopsis: arguments.synopsis)
        }
        try await fetchImage(url, context: context)
        return .proceed
    }

    static let artwork = Command(
        CommandSpec("artwork", summary: "download the loaded podcast's artwork, as 'image' does")
    ) { _, context throws(ShellError) in
        let podcast = try await context.session.requirePodcast()
        guard let url = podcast.artworkURL else { throw .noArtwork(podcast: podcast.title) }
        try await fetchImage(url, context: context)
        return .proceed
    }

    /// Fetches `url` into the image cache through the download engine and prints
    /// what it got. Any failure, Ctrl-C included, leaves nothing in the cache.
    static func fetchImage(_ url: URL, context: CommandContext) async throws(ShellError) {
        let cache = context.session.sources.images
        let file = cache.file(for: url)
        let cached = cache.cached(url)
        let request = DownloadRequest(
            id: "image-" + (file.final.lastPathComponent),
            url: url,
            file: file,
            cached: cached?.validators,
            requiredType: "image/"
        )
        let progress = InlineProgress(
            console: context.console,
            label: DownloadLabel(number: url.absoluteString, title: "")
        )
        let outcome: DownloadOutcome
        do {
            outcome = try await context.session.downloads.fetch(request) { progress.report($0) }
            progress.finish()
        } catch {
            progress.finish()
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
        let saved = SavedImage(file: file.final, url: url, outcome: outcome, contentType: contentType, info: info)
        context.output(Render.savedImage(saved), json: JSONRender.savedImage(saved))
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
