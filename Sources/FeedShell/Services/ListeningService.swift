import Foundation

/// Listening: the player and what it is handed (the saved position, chapters,
/// speed), positions and played marks written back to the library, and the
/// transcripts read beside an episode.
public final class ListeningService: Sendable {
    let configuration: ShellConfiguration
    let library: LibraryService
    let sources: SourcesService

    init(
        configuration: ShellConfiguration,
        library: LibraryService,
        sources: SourcesService
    ) {
        self.configuration = configuration
        self.library = library
        self.sources = sources
    }
}
