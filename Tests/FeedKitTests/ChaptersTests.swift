import Foundation
import Testing

@testable import FeedKit

/// The Podcast Index chapters format, decoded as listeners' apps read it.
@Suite("Chapters")
struct ChaptersTests {
    @Test func chaptersComeInTimeOrderWithoutSilentMarkers() throws {
        let json = """
            {"version": "1.2.0", "chapters": [
              {"startTime": 95.5, "title": "Second", "url": "https://example.org/two"},
              {"startTime": 0, "title": "First\\u0007 part", "img": "https://example.org/1.jpg"},
              {"startTime": 50, "title": "Hidden", "toc": false},
              {"startTime": 120, "url": "javascript:alert(1)"},
              {"startTime": 1e300, "title": "Far"},
              {"startTime": -1, "title": "Before"}
            ]}
            """
        let list = try JSONDecoder().decode(ChapterList.self, from: Data(json.utf8))
        #expect(
            list.chapters == [
                Chapter(start: 0, title: "First part", image: URL(string: "https://example.org/1.jpg")),
                Chapter(start: 95.5, title: "Second", url: URL(string: "https://example.org/two")),
                Chapter(start: 120, title: ""),
            ]
        )
    }

    @Test func aChapterWithoutItsStartIsMalformed() {
        let json = #"{"chapters": [{"startTime": 0, "title": "A"}, {"startTime": "soon", "title": "B"}]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ChapterList.self, from: Data(json.utf8)) }
    }
}
