import Foundation
import Library
import PlainText

/// Why a playlist could not be saved, found or read; `code` for programs.
package struct PlaylistProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package let code: String
    package let description: String

    package init(code: String, description: String) {
        self.code = code
        self.description = description
    }

    /// No playlist of that name; the known ones are named.
    package static func unknown(_ name: String, known: [String]) -> PlaylistProblem {
        let listed =
            known.isEmpty
            ? "there are none ('playlist add NAME FILTER...' makes one)" : "there are " + known.joined(separator: ", ")
        return PlaylistProblem(code: "no-playlist", description: "no playlist '\(SafeText.line(name))': \(listed)")
    }

    package static func badName(_ name: String) -> PlaylistProblem {
        PlaylistProblem(
            code: "bad-name",
            description:
                "'\(SafeText.line(name))' is not a playlist name: 1 to 40 letters, digits, - or _ (not add or rm)"
        )
    }

    package static func badFilter(_ error: PlaylistFilterError) -> PlaylistProblem {
        PlaylistProblem(code: "bad-filter", description: SafeText.line(error.description))
    }

    /// Saved by a feedsh that knew words this one does not.
    package static func unreadable(_ playlist: StoredPlaylist) -> PlaylistProblem {
        PlaylistProblem(
            code: "bad-filter",
            description:
                "playlist '\(playlist.name)' has words this feedsh does not read: \(SafeText.line(playlist.filter))"
        )
    }
}

/// One episode of a playlist, as every front end gives it: `playlist NAME
/// --json`, mcp's `playlist` and the web page.
package struct PlaylistEpisodeEntry: Codable, Sendable, Equatable {
    /// From 1, in the playlist's order.
    package var number: Int
    /// `P:E`.
    package var ref: String
    package var podcast: String
    package var title: String
    @Nullable package var date: Date?
    /// The feed's length; null when it gives none.
    @Nullable package var seconds: Double?
    package var played: Bool
    /// Seconds in where listening stopped (0: not started).
    package var position: Double
    package var downloaded: Bool

    package init(
        number: Int,
        ref: String,
        podcast: String,
        title: String,
        date: Date?,
        seconds: Double?,
        played: Bool,
        position: Double,
        downloaded: Bool
    ) {
        self.number = number
        self.ref = ref
        self.podcast = podcast
        self.title = title
        self.date = date
        self.seconds = seconds
        self.played = played
        self.position = position
        self.downloaded = downloaded
    }

    package init(number: Int, _ episode: ResolvedLibraryEpisode) {
        self.number = number
        ref = episode.ref
        podcast = SafeText.line(episode.podcast.title)
        title = SafeText.line(episode.stored.title)
        date = episode.stored.published
        seconds = episode.stored.seconds
        played = episode.stored.played
        position = episode.stored.position
        downloaded = episode.stored.downloaded
    }
}

/// A saved playlist and how many episodes it holds now.
package struct PlaylistSummary: Codable, Sendable, Equatable {
    package var name: String
    /// Its filter words.
    package var filter: String
    package var count: Int

    package init(name: String, filter: String, count: Int) {
        self.name = name
        self.filter = filter
        self.count = count
    }
}

/// `playlists --json`, mcp's `playlist` without a name.
package struct PlaylistList: DescribedValue, Sendable, Equatable {
    package var playlists: [PlaylistSummary]

    package init(_ playlists: [PlaylistSummary]) { self.playlists = playlists }

    package static var examples: [PlaylistList] {
        [PlaylistList([PlaylistSummary(name: "short", filter: "unplayed shorter:20m", count: 4)])]
    }
}

/// `playlist NAME --json`, mcp's `playlist` with a name: the episodes it holds
/// now, in its order.
package struct PlaylistEpisodes: DescribedValue, Sendable, Equatable {
    package var name: String
    package var filter: String
    package var episodes: [PlaylistEpisodeEntry]

    package init(name: String, filter: String, episodes: [PlaylistEpisodeEntry]) {
        self.name = name
        self.filter = filter
        self.episodes = episodes
    }

    package static var examples: [PlaylistEpisodes] {
        var entry = PlaylistEpisodeEntry.example
        entry.date = nil
        entry.seconds = nil
        return [
            PlaylistEpisodes(name: "short", filter: "unplayed shorter:20m", episodes: [PlaylistEpisodeEntry.example]),
            PlaylistEpisodes(name: "short", filter: "unplayed shorter:20m", episodes: [entry]),
        ]
    }
}

/// What `playlist add` saved.
package struct PlaylistSaved: DescribedValue, Sendable, Equatable {
    package var name: String
    package var filter: String
    /// Episodes it holds now.
    package var count: Int
    /// True when a playlist of that name was replaced.
    package var replaced: Bool

    package static var examples: [PlaylistSaved] {
        [PlaylistSaved(name: "short", filter: "unplayed shorter:20m", count: 4, replaced: false)]
    }
}

extension PlaylistEpisodeEntry {
    /// For the described values' examples.
    static var example: PlaylistEpisodeEntry {
        PlaylistEpisodeEntry(
            number: 1,
            ref: "2:1",
            podcast: "Swift Weekly",
            title: "Actors",
            date: Date(timeIntervalSince1970: 1_790_000_000),
            seconds: 900,
            played: false,
            position: 120,
            downloaded: true
        )
    }
}

extension Services {
    /// The saved playlists, each with how many episodes it holds now.
    package func playlists() async throws -> [PlaylistSummary] {
        guard let library = try self.library.openIfExists() else { return [] }
        var summaries: [PlaylistSummary] = []
        for playlist in try await library.playlists() {
            var count = 0
            if let filter = playlist.parsedFilter { count = try await library.count(matching: filter) }
            summaries.append(PlaylistSummary(name: playlist.name, filter: playlist.filter, count: count))
        }
        return summaries
    }

    /// Saves `words` as playlist `name` (replacing one of that name), once
    /// they parse; nothing is saved when they do not.
    package func savePlaylist(name: String, words: [String]) async throws -> PlaylistSaved {
        guard StoredPlaylist.validName(name) else { throw PlaylistProblem.badName(name) }
        let filter: PlaylistFilter
        switch PlaylistFilter.parse(words) {
        case .success(let parsed): filter = parsed
        case .failure(let error): throw PlaylistProblem.badFilter(error)
        }
        let library = try self.library.open()
        let playlist = StoredPlaylist(name: name, filter: filter)
        let replaced = try await library.savePlaylist(playlist)
        let count = try await library.count(matching: filter)
        return PlaylistSaved(name: name, filter: playlist.filter, count: count, replaced: replaced)
    }

    /// Removes playlist `name`; a name that is none is refused, naming those there are.
    package func removePlaylist(name: String) async throws {
        guard let library = try self.library.openIfExists(), try await library.removePlaylist(named: name) else {
            throw PlaylistProblem.unknown(name, known: try await playlistNames())
        }
    }

    /// Playlist `name` and the episodes it holds now, in its order.
    package func playlist(named name: String) async throws -> (
        playlist: StoredPlaylist, episodes: [ResolvedLibraryEpisode]
    ) {
        guard let library = try self.library.openIfExists(), let playlist = try await library.playlist(named: name)
        else {
            throw PlaylistProblem.unknown(name, known: try await playlistNames())
        }
        guard let filter = playlist.parsedFilter else { throw PlaylistProblem.unreadable(playlist) }
        return (playlist, try await library.episodes(matching: filter))
    }

    /// `playlist NAME --json`'s value.
    package func playlistEpisodes(named name: String) async throws -> PlaylistEpisodes {
        let (playlist, episodes) = try await playlist(named: name)
        return PlaylistEpisodes(
            name: playlist.name,
            filter: playlist.filter,
            episodes: episodes.enumerated().map { PlaylistEpisodeEntry(number: $0.offset + 1, $0.element) }
        )
    }

    /// The saved playlists' names.
    package func playlistNames() async throws -> [String] {
        guard let library = try self.library.openIfExists() else { return [] }
        return try await library.playlists().map(\.name)
    }
}
