import PlainText

/// Why a posts, images, Met or songs command failed.
enum SourcesFailure: CommandFailure {
    case noPreview(song: String)
    case noArtwork(podcast: String)
    case noImage(objectID: Int)
    /// The server named one image type and sent something else.
    case notTheImage(url: String, contentType: String, format: String)

    var failureCode: String {
        switch self {
        case .noPreview: "no-preview"
        case .noArtwork: "no-artwork"
        case .noImage: "no-image"
        case .notTheImage: "not-the-image"
        }
    }

    var description: String {
        switch self {
        case .noPreview(let song): "\(song) has no preview"
        case .noArtwork(let podcast): "\(podcast) has no artwork"
        case .noImage(let id): "Met object \(id) has no primary image"
        case .notTheImage(let url, let contentType, let format):
            "\(url) sent \(contentType) but the body is not a \(format) image"
        }
    }
}

extension ShellError {
    static func noPreview(song: String) -> ShellError {
        .failure(SourcesFailure.noPreview(song: SafeText.line(song)))
    }
    static func noArtwork(podcast: String) -> ShellError {
        .failure(SourcesFailure.noArtwork(podcast: SafeText.line(podcast)))
    }
    static func noImage(objectID: Int) -> ShellError { .failure(SourcesFailure.noImage(objectID: objectID)) }
    static func notTheImage(url: String, contentType: String, format: String) -> ShellError {
        .failure(
            SourcesFailure.notTheImage(
                url: SafeText.line(url),
                contentType: SafeText.line(contentType),
                format: format
            )
        )
    }
}
