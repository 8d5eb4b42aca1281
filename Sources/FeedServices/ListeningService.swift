import Foundation

/// Listening: the player and what it is handed (the saved position, chapters,
/// speed), positions and played marks written back to the library, and the
/// transcripts read beside an episode.
public final class ListeningService: Sendable {
    package let configuration: Configuration
    package let library: LibraryService
    package let sources: SourcesService

    package init(
        configuration: Configuration,
        library: LibraryService,
        sources: SourcesService
    ) {
        self.configuration = configuration
        self.library = library
        self.sources = sources
    }
}
