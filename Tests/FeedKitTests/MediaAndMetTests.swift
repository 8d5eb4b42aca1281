import FixtureData
import FixtureServer
import Foundation
import Testing

@testable import FeedKit

@Suite("Image headers")
struct ImageInfoTests {
    @Test(arguments: [
        ("images/artwork.jpg", ImageInfo.Format.jpeg, 600, 600),
        ("images/photo.png", .png, 200, 150),
        ("images/tiles.gif", .gif, 64, 48),
        ("images/swatch.webp", .webp, 100, 80),
    ])
    func readsTheFixtures(name: String, format: ImageInfo.Format, width: Int, height: Int) throws {
        let info = try #require(ImageInfo(header: try fixture(name)))
        #expect(info == ImageInfo(format: format, width: width, height: height))
    }

    @Test func jpegSizeComesAfterLargeSegments() {
        // SOI, an APP1 segment of 3000 bytes, then SOF2 (progressive) 480x640.
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x0B, 0xBA] + [UInt8](repeating: 0x41, count: 3000)
        bytes += [0xFF, 0xC2, 0x00, 0x11, 0x08, 0x02, 0x80, 0x01, 0xE0, 0x03]
        #expect(ImageInfo(header: bytes) == ImageInfo(format: .jpeg, width: 480, height: 640))
    }

    @Test func lossyAndExtendedWebP() {
        var lossy = Array("RIFF\0\0\0\0WEBPVP8 \0\0\0\0".utf8) + [0, 0, 0, 0x9D, 0x01, 0x2A]
        lossy += [0x20, 0x03, 0x58, 0x02]  // 800 x 600
        #expect(ImageInfo(header: lossy + [0, 0]) == ImageInfo(format: .webp, width: 800, height: 600))
        var extended = Array("RIFF\0\0\0\0WEBPVP8X\0\0\0\0".utf8) + [0, 0, 0, 0]
        extended += [0x3F, 0x1F, 0x00, 0xFF, 0x0F, 0x00]  // 8000 x 4096
        #expect(ImageInfo(header: extended) == ImageInfo(format: .webp, width: 8000, height: 4096))
    }

    @Test(arguments: [
        Array("<!DOCTYPE html><html></html>".utf8),
        Array("GIF8".utf8),
        [0x89, 0x50, 0x4E, 0x47],
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00],
        [],
    ])
    func rejectsWhatIsNotAWholeHeader(bytes: [UInt8]) {
        #expect(ImageInfo(header: bytes) == nil)
    }

    @Test func formatFromContentType() {
        #expect(ImageInfo.Format(contentType: "image/JPEG; charset=binary") == .jpeg)
        #expect(ImageInfo.Format(contentType: "image/svg+xml") == nil)
    }
}

@Suite("HTML entities")
struct HTMLEntitiesTests {
    @Test(arguments: [
        ("G. H. Aldrich &amp; Company", "G. H. Aldrich & Company"),
        ("&quot;Anna&quot; &#8211; &#x2014;", "\"Anna\" – —"),
        ("AT&T & more;", "AT&T & more;"),
        ("&bogus; &amp", "&bogus; &amp"),
        ("no entities", "no entities"),
    ])
    func decodes(input: String, expected: String) {
        #expect(HTMLEntities.decode(input) == expected)
    }
}

@Suite("Met collection")
struct MetTests {
    @Test func decodesTheFixtureObjects() throws {
        let objects = try JSONDecoder().decode([MetObject].self, from: try fixture("met/objects.json"))
        #expect(objects.count == 9)
        let sunflowers = try #require(objects.first { $0.id == 436102 })
        #expect(sunflowers.title == "Sunflowers & Sky")
        #expect(sunflowers.metadataDate != nil)
        let portrait = try #require(objects.first { $0.id == 436106 })
        #expect(portrait.title == "Portrait of a Woman \"Anna\"")
        #expect(portrait.artist == "Unknown & Workshop")
        #expect(portrait.date == nil)  // "" is missing, not empty
        let bridge = try #require(objects.first { $0.id == 436104 })
        #expect(bridge.constituents.isEmpty && bridge.tags.isEmpty)  // both null
        let study = try #require(objects.first { $0.id == 436103 })
        #expect(study.primaryImage == nil && !study.hasPublicImage)
    }

    @Test func metadataDatesWithOneToThreeFractionalDigits() throws {
        for text in ["2023-07-19T08:00:00.2Z", "2023-07-19T08:00:00.25Z", "2023-07-19T08:00:00.257Z"] {
            let json = #"{"objectID":1,"title":"t","metadataDate":"\#(text)"}"#
            let object = try JSONDecoder().decode(MetObject.self, from: Data(json.utf8))
            #expect(object.metadataDate != nil, "\(text)")
        }
    }

    @Test(.enabled(if: corpusHas("met/objects-10-full.json"), "../shared/corpus/met is not present"))
    func decodesTheCorpusObjects() throws {
        let corpus = try #require(corpusDirectory)
        let data = try Data(contentsOf: corpus.appendingPathComponent("met/objects-10-full.json"))
        let objects = try JSONDecoder().decode([MetObject].self, from: data)
        #expect(objects.count == 10)
        #expect(objects.allSatisfy { $0.metadataDate != nil })
        #expect(objects.allSatisfy { !$0.title.contains("&amp;") && !($0.artist ?? "").contains("&amp;") })
        let stereograph = try #require(objects.first { $0.id == 288149 })
        #expect(stereograph.constituents.contains { $0.name == "G. H. Aldrich & Company" })
        #expect(stereograph.primaryImage == nil)  // "" in the API
    }

    @Test func decodesSearchAnswersWithoutHits() throws {
        let none = try JSONDecoder().decode(MetSearchResult.self, from: Data(#"{"total":0,"objectIDs":null}"#.utf8))
        #expect(none == MetSearchResult(total: 0, objectIDs: []))
    }

    @Test(.enabled(if: corpusHas("met/objects-departmentIds-3.json"), "../shared/corpus/met is not present"))
    func decodesTheCorpusSearchAnswers() throws {
        let corpus = try #require(corpusDirectory)
        let data = try Data(contentsOf: corpus.appendingPathComponent("met/objects-departmentIds-3.json"))
        let department = try JSONDecoder().decode(MetSearchResult.self, from: data)
        #expect(department.total == department.objectIDs.count && department.total > 1000)
    }

    @Test func searchURLCarriesEveryParameter() async throws {
        try await withClient { _, http in
            let client = MetClient(baseURL: URL(string: "https://met.example/api")!, http: http)
            let url = client.searchURL(query: "sun & flowers+1", medium: "Oil on canvas", hasImages: true)
            #expect(
                url.absoluteString
                    == "https://met.example/api/public/collection/v1/search?medium=Oil%20on%20canvas&hasImages=true&q=sun%20%26%20flowers%2B1"
            )
            #expect(!client.searchURL(query: "x").absoluteString.contains("hasImages"))
        }
    }

    @Test func objectsKeepOrderFailSeparatelyAndRunFourAtATime() async throws {
        try await withClient { server, http in
            // Every object answers after 150 ms, so that fetches overlap.
            let met = MetClient(baseURL: server.baseURL.appendingPathComponent("fault/delay=150"), http: http)
            let ids = [436101, 436107, 436102, 999, 436103, 436104, 436105, 436106, 436108, 436109]
            server.resetPeakConcurrency()
            let results = await met.objects(ids: ids)
            #expect(results.map(\.id) == ids)
            #expect(throws: Never.self) { try results[0].result.get() }
            let failed = results.compactMap { entry -> FeedError? in
                if case .failure(let error) = entry.result { error } else { nil }
            }
            #expect(failed.map(\.status) == [500, nil])
            #expect(failed.last?.code == .notFound)
            #expect(server.peakConcurrency == MetClient.maxConcurrentFetches)
        }
    }

    @Test func searchesTheFixtureServer() async throws {
        try await withClient { server, http in
            let met = MetClient(baseURL: server.baseURL, http: http)
            let cypress = try await met.search(query: "cypress")
            #expect(cypress.objectIDs == [436101, 436103, 436107, 436109])
            let narrowed = try await met.search(query: "cypress", medium: "oil", hasImages: true)
            #expect(narrowed.objectIDs == [436101])
            let none = try await met.search(query: "no such thing")
            #expect(none.total == 0 && none.objectIDs.isEmpty)
        }
    }
}

@Suite("Music search")
struct TrackTests {
    @Test(.enabled(if: corpusHas("itunes/search-music-abba-limit3.json"), "../shared/corpus/itunes is not present"))
    func decodesTheCorpusAnswer() throws {
        let corpus = try #require(corpusDirectory)
        let data = try Data(contentsOf: corpus.appendingPathComponent("itunes/search-music-abba-limit3.json"))
        let response = try JSONDecoder().decode(SearchResponse<Track>.self, from: data)
        #expect(response.results.count == 3 && response.skipped == 0)
        let first = try #require(response.results.first)
        #expect(first.title == "Dancing Queen" && first.artist == "ABBA")
        #expect(first.duration == .milliseconds(231_844))
        #expect(first.previewExtension == "m4a")
    }

    @Test func searchesSongsAtTheFixtureServer() async throws {
        try await withClient { server, http in
            let itunes = ITunesClient(baseURL: server.baseURL, http: http)
            let songs = try await itunes.searchTracks(term: "loopbacks", limit: 10)
            #expect(songs.map(\.title) == ["Carrier Wave", "Port 8080", "Time to Live"])
            #expect(songs[2].previewURL == nil && songs[2].duration != nil)
            #expect(
                itunes.searchURL(term: "a b", media: "music", entity: "song", limit: 3).query
                    == "media=music&entity=song&term=a%20b&limit=3"
            )
        }
    }
}
