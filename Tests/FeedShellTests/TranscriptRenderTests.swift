import FeedKit
import Foundation
import Library
import PlainText
import Testing

@testable import FeedShell

/// A paragraph gathers up to 20 s of cues; a word said at 0:12 must not be
/// shown only under its paragraph's 0:02.
@Suite("A transcript's times")
struct TranscriptRenderTests {
    /// Ann speaks from 0:02 in three cues (0:02, 0:07, 0:12), then Bo at 0:30.
    static let kept: StoredTranscript = {
        let document = TranscriptDocument(
            format: .webVTT,
            cues: [
                TranscriptCue(start: 2, end: 6, speaker: "Ann", text: "Welcome to the garden show, where we dig."),
                TranscriptCue(start: 7, end: 11, speaker: "Ann", text: "This week the frost came early to the beds."),
                TranscriptCue(start: 12, end: 16, speaker: "Ann", text: "Leeks survived it; the beans did not."),
                TranscriptCue(start: 30, end: 33, speaker: "Bo", text: "Sad beans."),
            ]
        )
        return StoredTranscript(
            url: URL(string: "http://example.test/t.vtt")!,
            format: .webVTT,
            fetched: Date(timeIntervalSince1970: 0),
            timed: document.timedParagraphs()
        )
    }()

    @Test func eachWrappedLineShowsWhenItsFirstWordWasSaid() {
        let lines = Render.transcript(Self.kept, title: "Frost", width: 40).split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { TextLayout.width($0) <= 40 }, "\(lines)")
        // A line that starts in a later cue shows its time; one that starts in
        // the cue of the line above shows none again.
        #expect(
            lines == [
                "Frost: transcript (WebVTT)",
                "[0:02] Ann: Welcome to the garden show,",
                "       where we dig. This week the frost",
                "[0:07] came early to the beds. Leeks",
                "[0:12] survived it; the beans did not.",
                "[0:30] Bo: Sad beans.",
            ]
        )
    }

    @Test func unwrappedAParagraphBreaksWhereFiveSecondsHavePassed() {
        let text = Render.transcript(Self.kept, title: "Frost", width: nil)
        #expect(
            text.split(separator: "\n").map(String.init) == [
                "Frost: transcript (WebVTT)",
                "[0:02] Ann: Welcome to the garden show, where we dig.",
                "[0:07] This week the frost came early to the beds.",
                "[0:12] Leeks survived it; the beans did not.",
                "[0:30] Bo: Sad beans.",
            ]
        )
    }

    @Test func anUntimedTranscriptKeepsItsParagraphsWhole() {
        let kept = StoredTranscript(
            url: URL(string: "http://example.test/t.txt")!,
            format: .plain,
            fetched: Date(timeIntervalSince1970: 0),
            paragraphs: [TranscriptCue(start: nil, text: "One two three four five six seven eight nine ten.")]
        )
        #expect(
            Render.transcript(kept, title: "T", width: nil)
                == "T: transcript (plain text)\nOne two three four five six seven eight nine ten."
        )
        #expect(Render.transcript(kept, title: "T", width: 25).split(separator: "\n").count == 3)
    }
}

/// At 60 columns a hit's title went on past the screen's edge and the terminal
/// broke it mid-word.
@Suite("find's hits on a narrow terminal")
struct FindHitsLayoutTests {
    @Test func aLongTitleWrapsUnderItselfBetweenWords() {
        let hit = SearchHit(
            episodeID: 1,
            podcastNumber: 1,
            podcast: "Loopback Radio",
            episodeNumber: 1,
            title: "Ports, Sockets and the Art of Listening",
            snippet: "…We talk about \u{1}ports\u{2}, sockets…",
            at: 12
        )
        let lines = Render.findHits([hit], color: false, width: 60).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "f1  1:1 at 0:12  Loopback Radio: Ports, Sockets and the Art",
                "                 of Listening",
                "    …We talk about ports, sockets…",
                "('play fN' plays hit N, from where its words were said)",
            ]
        )
        // Unknown width (piped): one line per hit, as before.
        #expect(
            Render.findHits([hit], color: false, width: nil).hasPrefix(
                "f1  1:1 at 0:12  Loopback Radio: Ports, Sockets and the Art of Listening\n"
            )
        )
    }
}
