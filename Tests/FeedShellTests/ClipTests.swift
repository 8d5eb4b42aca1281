import FeedKit
import FeedServices
import Foundation
import Library
import Testing

@testable import FeedShell

/// A clip's span, its words on the command line and its transcript, apart
/// from FFmpeg and files.
@Suite("Clips")
struct ClipTests {
    @Test func theSpanLiesWithinTheEpisode() throws {
        func span(_ from: Double, _ to: Double?, length: Double? = nil) -> Result<ClosedRange<Double>, ClipProblem> {
            ClipSpan.resolve(from: from, to: to, length: length, duration: 120, ref: "1:1")
        }
        #expect(try span(60, 90).get() == 60...90)
        #expect(try span(100, nil, length: 20).get() == 100...120)
        // A length rounded past the end by a few hundredths is the end.
        #expect(try span(100, 120.04).get() == 100...120)
        for (from, to, code) in [
            (100.0, 130.0, "outside-episode"), (-1, 10, "outside-episode"), (30, 20, "bad-span"),
            (30, 30.2, "bad-span"),
        ] {
            guard case .failure(let problem) = span(from, to) else {
                Issue.record("\(from)-\(to) was taken")
                continue
            }
            #expect(problem.code == code, "\(from)-\(to): \(problem)")
        }
        guard case .failure(let outside) = span(110, 130) else { return }
        #expect(
            outside.description
                == "1:50-2:10 is not within 1:1, which is 2:00 long: FROM and TO must lie within 0:00-2:00"
        )
        guard case .failure(let noEnd) = span(10, nil) else { return }
        #expect(noEnd.description == "a clip needs TO, or --length (30s, 1m)")
        #expect(ClipSpan.clock(725.5) == "12:05.5")
        #expect(ClipSpan.clock(3723) == "1:02:03")
    }

    @Test func theWordsAfterTheEpisode() throws {
        #expect(try ClipWords.parse(["12:00", "13:00"], marked: nil, length: false) == .init(from: 720, to: 780))
        #expect(
            try ClipWords.parse(["5", "15s", "a.mp3"], marked: nil, length: false)
                == .init(from: 5, to: 15, file: "a.mp3")
        )
        // With --length a bookmark's time is the start, and a lone word that is
        // no time is the file.
        #expect(try ClipWords.parse([], marked: 42, length: true) == .init(from: 42))
        #expect(try ClipWords.parse(["out.wav"], marked: 42, length: true) == .init(from: 42, file: "out.wav"))
        #expect(try ClipWords.parse(["1:00"], marked: 42, length: true) == .init(from: 60))
        #expect(throws: ShellError.self) { try ClipWords.parse(["12:00"], marked: nil, length: false) }
        #expect(throws: ShellError.self) { try ClipWords.parse(["soon", "13:00"], marked: nil, length: false) }
    }

    /// Ann's paragraph holds cues at 0, 10 and 20 s; Bo speaks at 30 s.
    @Test func theTranscriptsCuesWithinTheSpanTimedFromZero() {
        let document = TranscriptDocument(
            format: .webVTT,
            cues: [
                TranscriptCue(start: 0, end: 10, speaker: "Ann", text: "Welcome to the show."),
                TranscriptCue(start: 10, end: 19, speaker: "Ann", text: "A word from Acme."),
                TranscriptCue(start: 19.5, end: 30, speaker: "Ann", text: "The lighthouse story."),
                TranscriptCue(start: 30, end: 40, speaker: "Bo", text: "Goodbye."),
            ]
        )
        let kept = StoredTranscript(
            url: URL(string: "http://example.test/t.vtt")!,
            format: .webVTT,
            fetched: Date(timeIntervalSince1970: 0),
            timed: document.timedParagraphs()
        )
        let cues = ClipTranscript.cues(of: kept)
        #expect(
            cues.map(\.text) == [
                "Ann: Welcome to the show.", "A word from Acme.", "The lighthouse story.", "Bo: Goodbye.",
            ]
        )
        #expect(cues.map(\.start) == [0, 10, 19.5, 30])
        #expect(cues.map(\.end) == [10, 19.5, 30, nil])
        #expect(
            ClipTranscript.srt(cues, within: 5...25) == """
                1
                00:00:00,000 --> 00:00:05,000
                Ann: Welcome to the show.

                2
                00:00:05,000 --> 00:00:14,500
                A word from Acme.

                3
                00:00:14,500 --> 00:00:20,000
                The lighthouse story.

                """
        )
        // The last cue runs to the span's end; a span with no words writes none.
        #expect(ClipTranscript.srt(cues, within: 35...38).hasPrefix("1\n00:00:00,000 --> 00:00:03,000\nBo: Goodbye."))
        #expect(ClipTranscript.srt([], within: 0...10).isEmpty)
    }
}
