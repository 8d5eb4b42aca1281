import Foundation
import Testing

@testable import FeedKit

@Suite("Podcast decoding")
struct PodcastDecodingTests {
    @Test func defaultFixtureHasFiveEpisodesInOrder() throws {
        let podcast = try JSONDecoder().decode(Podcast.self, from: fixture("itunes/lookup-1386867488.json"))
        #expect(podcast.id == 1_386_867_488)
        #expect(podcast.title == "Loopback Radio")
        #expect(podcast.artist == "feedsh fixtures")
        #expect(podcast.genres == ["Technology", "Podcasts"])
        #expect(podcast.episodeCount == 5)
        #expect(podcast.episodes.count == 5)
        #expect(podcast.warnings.isEmpty)
        let first = try #require(podcast.episodes.first)
        #expect(first.id == 1_000_700_000_001)
        #expect(first.podcastID == 1_386_867_488)
        #expect(first.title == "Ports, Sockets and the Art of Listening")
        #expect(first.duration == .milliseconds(2_712_000))
        #expect(first.releaseDate == ISO8601.parse("2026-11-02T09:00:00Z"))
        #expect(first.fileExtension == "mp3")
        #expect(first.description?.contains("\n") == true)
        let dates = podcast.episodes.compactMap(\.releaseDate)
        #expect(dates == dates.sorted(by: >))
    }

    /// Lengths that overflow an integer are unknown, not a trap; a repeated trackId
    /// is skipped and said (two episodes would share one download).
    @Test func hostileNumbersAreUnknownAndRepeatsSkipped() throws {
        let podcast = try JSONDecoder().decode(Podcast.self, from: fixture("itunes/lookup-1000000004.json"))
        #expect(podcast.episodes.map(\.duration) == [nil, nil, nil, .seconds(754)])
        #expect(Set(podcast.episodes.map(\.id)).count == podcast.episodes.count)
        #expect(
            podcast.warnings.map(\.description) == [
                "skipped episode 5: its trackId 1000400000001 is the same as episode 1's"
            ]
        )
        #expect(Duration.plausible(milliseconds: .infinity) == nil)
        #expect(Duration.plausible(milliseconds: .nan) == nil)
        #expect(Duration.plausible(milliseconds: 86_400_000) == .seconds(86_400))
    }

    @Test func largeFixtureDecodesEveryEpisode() throws {
        let podcast = try JSONDecoder().decode(Podcast.self, from: fixture("itunes/lookup-1000000001.json"))
        #expect(podcast.episodes.count == 60)
        #expect(Set(podcast.episodes.map(\.id)).count == 60)
    }

    @Test func quirksDecodeAndTheMalformedEpisodeIsSkipped() throws {
        let podcast = try JSONDecoder().decode(Podcast.self, from: fixture("itunes/lookup-1000000002.json"))
        // 6 episodes in the file, one has a string trackId.
        #expect(podcast.episodes.count == 5)
        #expect(podcast.warnings.count == 1)
        let warning = try #require(podcast.warnings.first)
        #expect(warning.element == "results[4]")
        #expect(warning.keyPath == "results[4].trackId")
        #expect(warning.description == "skipped episode 4: its trackId is text, not a number")
        #expect(warning.detail.contains("string"))
        // Order as sent, not by date.
        #expect(podcast.episodes.map(\.title).first == "Third, listed first")
        // Missing trackTimeMillis is nil, not zero.
        #expect(podcast.episodes[1].duration == nil)
        // The podcast's trackTimeMillis (seconds) does not leak anywhere; the genre list
        // of the podcast record is absent here (the default fixture has it as strings).
        #expect(podcast.genres.isEmpty)
        #expect(podcast.episodes.first { $0.title.hasPrefix("An M4A") }?.fileExtension == "m4a")
        #expect(podcast.title.contains("\u{00A0}"))
    }

    @Test func malformedPodcastRecordNamesTheKeyPath() throws {
        do {
            _ = try JSONDecoder().decode(Podcast.self, from: fixture("itunes/lookup-1000000003.json"))
            Issue.record("expected a decoding error")
        } catch let error as DecodingError {
            #expect(DecodingFailure(error).keyPath == "results[0].collectionName")
        }
    }

    @Test func emptyLookupIsItsOwnError() {
        #expect(throws: EmptyLookupResponse.self) {
            _ = try JSONDecoder().decode(Podcast.self, from: Data(#"{"resultCount":0,"results":[]}"#.utf8))
        }
    }

    @Test func missingResultsKeyNamesIt() {
        do {
            _ = try JSONDecoder().decode(Podcast.self, from: Data(#"{"resultCount":1,"result":[]}"#.utf8))
            Issue.record("expected a decoding error")
        } catch let error as DecodingError {
            let failure = DecodingFailure(error)
            #expect(failure.keyPath == "results")
            #expect(failure.detail == "missing key 'results'")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func episodeWithMissingURLIsSkippedOthersKept() throws {
        let json = """
            {"results":[{"collectionId":1,"collectionName":"P"},
              {"collectionId":1,"trackId":2,"trackName":"no url"},
              {"collectionId":1,"trackId":3,"trackName":"ok","episodeUrl":"http://h/3.mp3","releaseDate":"2024-01-02T03:04:05.123Z"},
              null,
              {"collectionId":1,"trackId":5,"trackName":"bad date","episodeUrl":"http://h/5","releaseDate":"yesterday"}]}
            """
        let podcast = try JSONDecoder().decode(Podcast.self, from: Data(json.utf8))
        #expect(podcast.episodes.map(\.id) == [3])
        #expect(podcast.episodes[0].releaseDate != nil)
        #expect(podcast.warnings.map(\.keyPath) == ["results[1].episodeUrl", "results[3]", "results[4].releaseDate"])
    }

    @Test func fileExtensionFallsBackToMP3() {
        let make = { (url: String) in Episode(id: 1, podcastID: 1, title: "t", audioURL: URL(string: url)!) }
        #expect(make("http://h/a/b.M4A?x=1").fileExtension == "m4a")
        #expect(make("http://h/stream").fileExtension == "mp3")
        #expect(make("http://h/x.tar.gz").fileExtension == "gz")
        // A file named like an unfinished download would be taken for one.
        #expect(make("http://h/episode.part").fileExtension == "mp3")
        #expect(make("http://h/episode.PART?x=1").fileExtension == "mp3")
        #expect(make("http://h/a.verylongext").fileExtension == "mp3")
    }

    /// Real responses saved by others, when ../shared/corpus is present.
    @Test(.enabled(if: !corpusFiles("itunes", prefix: "lookup-").isEmpty, "../shared/corpus/itunes is not present"))
    func corpusLookupsDecode() throws {
        let files = corpusFiles("itunes", prefix: "lookup-")
        for file in files {
            let podcast = try JSONDecoder().decode(Podcast.self, from: Data(contentsOf: file))
            #expect(!podcast.episodes.isEmpty, "\(file.lastPathComponent)")
            #expect(podcast.warnings.isEmpty, "\(file.lastPathComponent): \(podcast.warnings)")
            #expect(podcast.id > Int64(Int32.max) || podcast.id > 0)
            #expect(podcast.episodes.allSatisfy { $0.podcastID == podcast.id }, "\(file.lastPathComponent)")
            #expect(podcast.episodes.allSatisfy { $0.id > Int64(UInt32.max) }, "\(file.lastPathComponent)")
        }
    }
}

@Suite("Podcast references")
struct PodcastReferenceTests {
    @Test(arguments: [
        ("1386867488", Int64(1_386_867_488)),
        ("id1386867488", 1_386_867_488),
        ("https://podcasts.apple.com/us/podcast/the-symbolic-world/id1386867488", 1_386_867_488),
        ("https://podcasts.apple.com/us/podcast/x/id1386867488?i=1000600017070", 1_386_867_488),
        ("https://itunes.apple.com/lookup?id=42", 42),
    ])
    func accepts(text: String, id: Int64) {
        #expect(PodcastReference.id(from: text) == id)
    }

    @Test(arguments: ["", "0", "-5", "abc", "https://example.com/id123", "id"])
    func rejects(text: String) {
        #expect(PodcastReference.id(from: text) == nil)
    }
}
