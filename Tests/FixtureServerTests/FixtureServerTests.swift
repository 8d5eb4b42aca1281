import AsyncHTTPClient
import FixtureData
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import FixtureServer

/// Starts a fixture server for the duration of `body`.
func withServer<T>(
    _ configuration: FixtureServer.Configuration = .init(),
    _ body: (FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start(configuration)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

struct Fetched {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]
}

func fetch(_ url: URL, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Fetched {
    var request = HTTPClientRequest(url: url.absoluteString)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 64 << 20)
    return Fetched(status: Int(response.status.code), headers: response.headers, body: Array(buffer: body))
}

@Suite("Fixture server")
struct FixtureServerTests {
    @Test func tonesAreWAVFilesServedWithRanges() async throws {
        try await withServer { server in
            let tone = ToneMedia(seconds: 3).allBytes
            #expect(tone.count == 44 + 3 * 16_000)
            #expect(Array(tone[0..<4]) == Array("RIFF".utf8) && Array(tone[8..<16]) == Array("WAVEfmt ".utf8))
            let whole = try await fetch(server.url("/media/tone/3.wav"))
            #expect(whole.status == 200)
            #expect(whole.headers.first(name: "Content-Type") == "audio/wav")
            #expect(whole.body == tone)
            let part = try await fetch(server.url("/media/tone/3.wav"), headers: [("Range", "bytes=30-129")])
            #expect(part.status == 206)
            #expect(part.body == Array(tone[30..<130]))
            let feed = try await fetch(server.url("/feeds/listening.xml"))
            let text = String(decoding: feed.body, as: UTF8.self)
            #expect(text.contains("\(server.baseURL.absoluteString)/media/tone/120.wav"))
        }
    }

    @Test func lookupServesFixtureWithMediaURLsOnTheServer() async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/lookup?id=1386867488&limit=5"))
            #expect(response.status == 200)
            #expect(response.headers.first(name: "Content-Type") == "text/javascript; charset=utf-8")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            let results = try #require(object["results"] as? [[String: Any]])
            #expect(results.count == 6)
            #expect(object["resultCount"] as? Int == 6)
            let audio = try #require(results[1]["episodeUrl"] as? String)
            #expect(audio.hasPrefix(server.baseURL.absoluteString + "/media/1386867488/"))
        }
    }

    @Test func lookupHonoursLimit() async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/lookup?id=1000000001&limit=7"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect((object["results"] as? [Any])?.count == 8)
        }
    }

    @Test func unknownLookupIsEmptyLikeApple() async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/lookup?id=42"))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"resultCount":0,"results":[]}"#)
        }
    }

    @Test func mediaIsDeterministicWithValidators() async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/media/a/b.mp3?size=300000"))
            #expect(response.status == 200)
            #expect(response.body == SyntheticMedia(key: "a/b.mp3", size: 300_000).allBytes)
            #expect(response.headers.first(name: "Content-Length") == "300000")
            #expect(response.headers.first(name: "Accept-Ranges") == "bytes")
            #expect(response.headers.first(name: "Content-Type") == "audio/mpeg")
            let etag = try #require(response.headers.first(name: "ETag"))
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            #expect(response.headers.first(name: "Last-Modified")?.hasSuffix("GMT") == true)
        }
    }

    @Test func headHasHeadersAndNoBody() async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/media/x.mp3?size=1234"), method: .HEAD)
            #expect(response.status == 200)
            #expect(response.headers.first(name: "Content-Length") == "1234")
            #expect(response.body.isEmpty)
        }
    }

    @Test(arguments: [
        ("bytes=100-", 100..<1000, "bytes 100-999/1000"),
        ("bytes=0-9", 0..<10, "bytes 0-9/1000"),
        ("bytes=990-5000", 990..<1000, "bytes 990-999/1000"),
        ("bytes=-10", 990..<1000, "bytes 990-999/1000"),
    ])
    func rangeAnswers206(header: String, expected: Range<Int>, contentRange: String) async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/media/r.mp3?size=1000"), headers: [("Range", header)])
            #expect(response.status == 206)
            #expect(response.headers.first(name: "Content-Range") == contentRange)
            #expect(response.body == SyntheticMedia(key: "r.mp3", size: 1000).bytes(expected))
        }
    }

    @Test func rangePastTheEndIs416() async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/media/r.mp3?size=1000"), headers: [("Range", "bytes=1000-")])
            #expect(response.status == 416)
            #expect(response.headers.first(name: "Content-Range") == "bytes */1000")
        }
    }

    @Test func ifRangeWithStaleValidatorServesEverything() async throws {
        try await withServer { server in
            let url = server.url("/media/r.mp3?size=1000")
            let head = try await fetch(url, method: .HEAD)
            let etag = try #require(head.headers.first(name: "ETag"))
            let fresh = try await fetch(url, headers: [("Range", "bytes=500-"), ("If-Range", etag)])
            #expect(fresh.status == 206)
            let stale = try await fetch(url, headers: [("Range", "bytes=500-"), ("If-Range", "\"old\"")])
            #expect(stale.status == 200)
            #expect(stale.body.count == 1000)
            let byDate = try #require(head.headers.first(name: "Last-Modified"))
            let dated = try await fetch(url, headers: [("Range", "bytes=500-"), ("If-Range", byDate)])
            #expect(dated.status == 206)
        }
    }

    @Test func changedETagChangesContent() async throws {
        try await withServer { server in
            let v0 = try await fetch(server.url("/media/e.mp3?size=5000"))
            let v1 = try await fetch(server.url("/fault/etag=1/media/e.mp3?size=5000"))
            #expect(v0.headers.first(name: "ETag") != v1.headers.first(name: "ETag"))
            #expect(v0.body != v1.body)
            #expect(v1.body == SyntheticMedia(key: "e.mp3", version: 1, size: 5000).allBytes)
        }
    }

    @Test func ignoringRangeAnswers200() async throws {
        try await withServer { server in
            let response = try await fetch(
                server.url("/fault/norange/media/n.mp3?size=2000"),
                headers: [("Range", "bytes=1000-")]
            )
            #expect(response.status == 200)
            #expect(response.body.count == 2000)
            #expect(response.headers.first(name: "Accept-Ranges") == nil)
        }
    }

    @Test func droppedConnectionIsAnErrorForTheClient() async throws {
        try await withServer { server in
            await #expect(throws: (any Error).self) {
                _ = try await fetch(server.url("/fault/drop=100000/media/d.mp3?size=1000000"))
            }
            await #expect(throws: (any Error).self) {
                _ = try await fetch(server.url("/fault/short=10/media/d.mp3?size=1000"))
            }
        }
    }

    @Test func statusFaultWithRetryAfterRecoversAfterTimes() async throws {
        try await withServer { server in
            let url = server.url("/fault/status=503,retry-after=2,times=2/media/s.mp3?size=10")
            let first = try await fetch(url)
            #expect(first.status == 503)
            #expect(first.headers.first(name: "Retry-After") == "2")
            let second = try await fetch(url)
            #expect(second.status == 503)
            let third = try await fetch(url)
            #expect(third.status == 200)
        }
    }

    @Test func htmlFaultServesAPage() async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/fault/html/lookup?id=1"))
            #expect(response.headers.first(name: "Content-Type")?.hasPrefix("text/html") == true)
        }
    }

    @Test func unknownFaultIs400() async throws {
        try await withServer { server in
            let response = try await fetch(server.url("/fault/bogus=1/lookup?id=1"))
            #expect(response.status == 400)
        }
    }

    @Test func throttleSlowsMedia() async throws {
        try await withServer(.init(mediaRate: 200_000)) { server in
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                _ = try await fetch(server.url("/media/t.mp3?size=100000"))
            }
            // 100 kB at 200 kB/s: about half a second; a loose lower bound only.
            #expect(elapsed >= .milliseconds(400))
        }
    }

    @Test func recordsRangeRequests() async throws {
        try await withServer { server in
            _ = try await fetch(server.url("/fault/etag=0/media/q.mp3?size=100"), headers: [("Range", "bytes=5-")])
            let recorded = try #require(server.requests.last)
            #expect(recorded.path == "/media/q.mp3")
            #expect(recorded.range == "bytes=5-")
        }
    }
}

@Suite("Synthetic media and ranges")
struct SyntheticMediaTests {
    @Test func anyRangeMatchesTheWhole() {
        let media = SyntheticMedia(key: "k", size: 1001)
        let all = media.allBytes
        for range in [0..<1, 3..<17, 8..<16, 7..<1001, 1000..<1001] {
            #expect(media.bytes(range) == Array(all[range]))
        }
    }

    @Test func defaultSizesAreSeveralMegabytes() {
        for key in ["1/2.mp3", "1/3.mp3", "9/9.m4a"] {
            #expect((3_000_000..<8_000_000).contains(SyntheticMedia(key: key).size))
        }
    }
}

@Suite("Fixture files")
struct FixtureFilesTests {
    /// Every file in Fixtures/ is embedded, and every embedded file exists.
    @Test func embeddedListMatchesTheFolder() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        let onDisk = Set(
            enumerator.compactMap { $0 as? String }.filter {
                $0.contains(".") && !$0.hasSuffix(".md") && !$0.hasSuffix(".swift")
            }
        )
        #expect(onDisk == Set(FixtureFiles.all.keys))
        for (name, bytes) in FixtureFiles.all {
            #expect(try Data(contentsOf: root.appendingPathComponent(name)) == Data(bytes), "\(name)")
        }
    }
}
