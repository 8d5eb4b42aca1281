import FeedKit
import Foundation
import Library

/// Why a transcript could not be had.
package enum TranscriptError: Error, Sendable, CustomStringConvertible {
    /// The episode's feed names no transcript.
    case missing(episode: String)
    /// It names some, in none of the formats feedsh reads.
    case unreadable(episode: String, types: [String])
    case library(LibraryError)
    case feed(FeedError)

    package var description: String {
        switch self {
        case .missing(let episode): "\(episode) has no transcript (its feed gives no podcast:transcript)"
        case .unreadable(let episode, let types):
            "\(episode) offers transcripts only as \(types.joined(separator: ", ")), which feedsh does not read"
        case .library(let error): error.description
        case .feed(let error): error.description
        }
    }
}

extension ListeningService {
    /// A library episode's transcript: the one kept in the library, else (or with
    /// `refresh`) the richest of those `offered`, fetched, parsed and kept, so
    /// that `find` searches it.
    package func transcript(
        of episodeID: Int64,
        offered: [Transcript],
        title: String,
        refresh: Bool = false
    ) async throws(TranscriptError) -> StoredTranscript {
        let library: Library
        do throws(LibraryError) {
            library = try self.library.open()
            if !refresh, let kept = try await library.transcript(of: episodeID) { return kept }
        } catch {
            throw .library(error)
        }
        guard !offered.isEmpty else { throw .missing(episode: title) }
        guard let (chosen, format) = TranscriptFormat.richest(offered) else {
            throw .unreadable(episode: title, types: offered.map { $0.type ?? $0.url.pathExtension })
        }
        let http = sources.http
        let headers =
            await self.library.authorization(for: chosen.url, ofEpisode: episodeID).map { [("Authorization", $0)] }
            ?? []
        let document: TranscriptDocument
        do throws(FeedError) {
            let body = try await http.get(chosen.url, headers: headers, limit: TranscriptDocument.byteLimit)
            document = try TranscriptDocument.parse(body.data, format: format, from: chosen.url)
        } catch {
            throw .feed(error)
        }
        do throws(LibraryError) {
            return try await library.storeTranscript(document, from: chosen.url, for: episodeID)
        } catch {
            throw .library(error)
        }
    }
}
