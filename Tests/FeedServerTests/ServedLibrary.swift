import FeedKit
import FeedServices
import Foundation
import Library
import Testing

@testable import FeedServer

/// A library on disk, served: subscription 1 ("Harbour Sounds") with three
/// episodes, the newest two downloaded, over real services (no network: nothing
/// here fetches), for the routes through HummingbirdTesting.
struct ServedLibrary: Sendable {
    let folder: URL
    let services: Services
    let library: Library
    let podcast: StoredPodcast
    /// Newest first, as `episodes` lists them (1:1 is the first).
    let episodes: [StoredEpisode]

    /// A subscription whose feed title, episode titles and notes are `hostile`
    /// when given (a feed's markup and scripts).
    static func make(title: String = "Harbour Sounds", notes: String = "<p>Gulls and <em>ropes</em>.</p>")
        async throws -> ServedLibrary
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedsh-served-\(UUID().uuidString)")
        let configuration = Configuration(
            downloadDirectory: folder.appendingPathComponent("downloads"),
            libraryFile: folder.appendingPathComponent("library.sqlite")
        )
        let services = Services(configuration: configuration)
        let library = try services.library.open()
        let id = try #require(
            try await library.subscribe(feedURL: URL(string: "https://feeds.example/harbour.xml")!, title: title)
                .podcast.id
        )
        var feed = Feed()
        feed.title = title
        feed.items = (1...3).map { day in
            FeedItem(
                guid: "harbour-\(day)",
                title: day == 3 ? "\(title) \(day)" : "Tide \(day)",
                description: FeedText.plain(notes),
                published: Date(timeIntervalSince1970: 1_790_000_000 + Double(day) * 86_400),
                duration: .seconds(120),
                enclosure: Enclosure(url: URL(string: "https://media.example/h\(day).mp3")!, type: "audio/mpeg"),
                notes: ShowNotes.markup(notes)
            )
        }
        _ = try await library.store(feed, for: id, validators: (nil, nil))
        let podcast = try #require(try await library.podcast(id))
        let episodes = try await library.episodes(of: id)
        let served = ServedLibrary(
            folder: folder,
            services: services,
            library: library,
            podcast: podcast,
            episodes: episodes
        )
        for stored in episodes.prefix(2) { try served.download(stored, of: podcast) }
        return served
    }

    /// Puts a 4 KiB file where a download of `stored` (of `podcast`) ends.
    func download(_ stored: StoredEpisode, of podcast: StoredPodcast) throws {
        let episode = try #require(stored.episode(in: podcast))
        let file = services.downloads.layout.file(
            podcastID: podcast.downloadKey,
            episodeID: episode.id,
            extension: episode.fileExtension
        )
        try FileManager.default.createDirectory(
            at: file.final.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(repeating: 0x55, count: 4096).write(to: file.final)
    }

    /// The server `feedsh serve` runs over this library, on loopback.
    func server(configuration: FeedServer.Configuration = .init()) -> FeedServer {
        FeedServer(catalog: LibraryCatalog(services: services), configuration: configuration, log: { _ in })
    }

    func close() async {
        await services.close()
        try? FileManager.default.removeItem(at: folder)
    }
}
