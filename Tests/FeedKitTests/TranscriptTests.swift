import Foundation
import Testing

@testable import FeedKit

/// `podcast:transcript` in each of its formats, and what bad input gets.
@Suite("Transcripts")
struct TranscriptTests {
    let url = URL(string: "http://127.0.0.1/t")!

    func parse(_ text: String, _ format: TranscriptFormat) throws -> TranscriptDocument {
        try TranscriptDocument.parse(Data(text.utf8), format: format, from: url)
    }

    @Test func srtCuesKeepTheirTimesAndLoseTheirMarkup() throws {
        let srt = """
            1
            00:00:01,500 --> 00:00:04,000
            Hello <i>and</i> welcome\u{1B}[2J

            2
            00:01:02,000 --> 00:01:05,250
            to the show,
            everyone.

            """
        let document = try parse(srt, .srt)
        #expect(
            document.cues == [
                TranscriptCue(start: 1.5, end: 4, text: "Hello and welcome"),
                TranscriptCue(start: 62, end: 65.25, text: "to the show, everyone."),
            ]
        )
        #expect(document.isTimed)
    }

    @Test func webVTTVoicesAreSpeakersAndNotesAreSkipped() throws {
        let vtt = """
            WEBVTT - an episode

            NOTE written by hand

            intro
            00:00.000 --> 00:03.000 align:start
            <v Alice Smith>Hi, I&apos;m Alice.

            00:00:03.000 --> 00:00:06.000
            <v.loud Bob>And I'm <b>Bob</b>.
            """
        let document = try parse(vtt, .webVTT)
        #expect(
            document.cues == [
                TranscriptCue(start: 0, end: 3, speaker: "Alice Smith", text: "Hi, I'm Alice."),
                TranscriptCue(start: 3, end: 6, speaker: "Bob", text: "And I'm Bob."),
            ]
        )
    }

    @Test(arguments: [
        ("1\n00:00:01,000 -> 00:00:02,000\nHi\n", TranscriptFormat.srt, "SRT line 1: a cue without a time"),
        ("1\n00:0x:01,000 --> 00:00:02,000\nHi\n", .srt, "SRT line 2: '00:0x:01,000 ' is not a time"),
        ("1\n00:00:01,000 --> 99:99:99,000\nHi\n", .srt, "SRT line 2: '99:99:99,000' is not a time"),
        ("00:01.000 --> 00:02.000\nHi\n", .webVTT, "WebVTT line 1: a WebVTT file starts with 'WEBVTT'"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n\njust words\n", .webVTT, "WebVTT line 6: a cue without a time"),
    ])
    func malformedCuesNameTheirLine(text: String, format: TranscriptFormat, expected: String) {
        #expect {
            _ = try parse(text, format)
        } throws: { error in
            let error = error as? FeedError
            return error?.code == .invalidTranscript && error?.description.contains(expected) == true
        }
    }

    @Test func theIndexJSONGivesSpeakersAndAMalformedOneItsPath() throws {
        let json = """
            {"version": "1.0.0", "segments": [
              {"speaker": "Alice", "startTime": 0.5, "endTime": 2, "body": "Hello"},
              {"startTime": 2, "endTime": 1e300, "body": "there"},
              {"startTime": -5, "body": "before the start"},
              {"speaker": "Bob\\u0007", "startTime": 3, "body": "  "}
            ]}
            """
        #expect(
            try parse(json, .json).cues == [
                TranscriptCue(start: 0.5, end: 2, speaker: "Alice", text: "Hello"),
                TranscriptCue(start: 2, text: "there"),
            ]
        )
        let broken = #"{"segments": [{"startTime": 0, "body": "a"}, {"startTime": "x", "body": "b"}]}"#
        #expect {
            _ = try parse(broken, .json)
        } throws: { error in
            (error as? FeedError)?.keyPath == "segments[1].startTime"
        }
    }

    @Test func htmlGivesSpeakersAndTimesAndDropsScripts() throws {
        let html = """
            <html><head><style>p { color: red }</style><script>alert("<p>no</p>")</script></head>
            <body><!-- <p>hidden</p> -->
            <cite>Alice:</cite><time>0:05</time><p>Hello &amp; welcome.</p>
            <cite>Bob:</cite><time>1:02:03</time><p>Thanks <b>Alice</b>.</p>
            <p>Untimed aside.</p>
            <SCRIPT type="text/javascript">document.write("x")</SCRIPT>
            </body></html>
            """
        #expect(
            try parse(html, .html).cues == [
                TranscriptCue(start: 5, speaker: "Alice", text: "Hello & welcome."),
                TranscriptCue(start: 3723, speaker: "Bob", text: "Thanks Alice."),
                TranscriptCue(start: nil, speaker: "Bob", text: "Untimed aside."),
            ]
        )
    }

    /// Two megabytes each of empty comments and of empty styles, and an unclosed
    /// comment, read in linear time (about a second here in a debug build). The
    /// bound is loose for a machine running the whole suite; the old code took
    /// over 30 s alone.
    @Test func emptyCommentsAndStylesAreReadInLinearTime() throws {
        let started = ContinuousClock.now
        let comments = String(repeating: "<!---->", count: 300_000) + "<p>a</p><!-- never closed <p>lost</p>"
        #expect(try parse(comments, .html).cues.map(\.text) == ["a"])
        let styles = String(repeating: "<STYLE></Style >", count: 130_000) + "<p>end</p>"
        #expect(try parse(styles, .html).cues.map(\.text) == ["end"])
        #expect(ContinuousClock.now - started < .seconds(25))
    }

    @Test func plainTextIsParagraphs() throws {
        let document = try parse("First line\nsame paragraph.\n\n\nSecond\u{07}.\r\n", .plain)
        #expect(
            document.cues == [
                TranscriptCue(start: nil, text: "First line same paragraph."),
                TranscriptCue(start: nil, text: "Second."),
            ]
        )
        #expect(!document.isTimed)
    }

    @Test func aFiftyMegabyteTranscriptIsRefused() {
        let data = Data(count: 50 << 20)
        #expect {
            _ = try TranscriptDocument.parse(data, format: .plain, from: url)
        } throws: { error in
            (error as? FeedError)?.code == .bodyTooLarge
        }
    }

    @Test func theRichestTranscriptIsChosen() {
        func transcript(_ path: String, _ type: String?) -> Transcript {
            Transcript(url: URL(string: "https://example.org/\(path)")!, type: type)
        }
        let offered = [
            transcript("a.txt", "text/plain"), transcript("b", "text/html"), transcript("c.srt", nil),
            transcript("d", "application/x-subrip"), transcript("e.pdf", "application/pdf"),
        ]
        #expect(TranscriptFormat.richest(offered)?.transcript.url.lastPathComponent == "c.srt")
        #expect(TranscriptFormat.richest(offered + [transcript("f", "text/vtt; charset=utf-8")])?.format == .webVTT)
        #expect(TranscriptFormat.richest([transcript("e.pdf", "application/pdf")]) == nil)
    }

    @Test func cuesJoinIntoParagraphsBySpeakerAndTime() {
        let document = TranscriptDocument(
            format: .srt,
            cues: [
                TranscriptCue(start: 0, end: 2, speaker: "A", text: "one"),
                TranscriptCue(start: 5, end: 7, speaker: "A", text: "two"),
                TranscriptCue(start: 8, end: 9, speaker: "B", text: "three"),
                TranscriptCue(start: 30, end: 31, speaker: "B", text: "four"),
            ]
        )
        #expect(
            document.paragraphs() == [
                TranscriptCue(start: 0, end: 7, speaker: "A", text: "one two"),
                TranscriptCue(start: 8, end: 9, speaker: "B", text: "three"),
                TranscriptCue(start: 30, end: 31, speaker: "B", text: "four"),
            ]
        )
    }
}
