import Foundation
import PlainText

/// One cue of a transcript: what was said, by whom, from when.
public struct TranscriptCue: Sendable, Equatable {
    /// Seconds from the start of the episode; nil in an untimed transcript.
    public var start: Double?
    public var end: Double?
    /// Sanitized; nil when the transcript names no speaker.
    public var speaker: String?
    /// Sanitized, one line.
    public var text: String

    public init(start: Double?, end: Double? = nil, speaker: String? = nil, text: String) {
        self.start = start
        self.end = end
        self.speaker = speaker
        self.text = text
    }
}

/// The formats of `podcast:transcript` (<https://github.com/Podcastindex-org/podcast-namespace/blob/main/transcripts/transcripts.md>).
public enum TranscriptFormat: String, Sendable, Equatable, CaseIterable {
    /// The Podcast Index JSON: `{"segments": [{"speaker", "startTime", "endTime", "body"}]}`.
    case json
    case webVTT = "vtt"
    case srt
    case html
    case plain = "txt"

    /// The format a `type` attribute names, else the one the URL's extension says;
    /// nil for neither.
    public init?(type: String?, url: URL) {
        let media = (type ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        switch media {
        case "application/json": self = .json
        case "text/vtt": self = .webVTT
        case "application/srt", "application/x-subrip", "text/srt", "application/x-srt", "text/x-srt": self = .srt
        case "text/html": self = .html
        case "text/plain": self = .plain
        default:
            switch url.pathExtension.lowercased() {
            case "json": self = .json
            case "vtt": self = .webVTT
            case "srt": self = .srt
            case "html", "htm": self = .html
            case "txt": self = .plain
            default: return nil
            }
        }
    }

    /// How much a reader gets from the format: times and speakers (JSON, WebVTT),
    /// times (SRT), perhaps times (HTML), text (plain).
    public var richness: Int {
        switch self {
        case .json: 4
        case .webVTT: 3
        case .srt: 2
        case .html: 1
        case .plain: 0
        }
    }

    /// A person's name for the format.
    public var name: String {
        switch self {
        case .json: "JSON"
        case .webVTT: "WebVTT"
        case .srt: "SRT"
        case .html: "HTML"
        case .plain: "plain text"
        }
    }

    /// Of an episode's transcripts, the richest one feedsh reads (timed over
    /// untimed; the feed's order among equals); nil when it reads none.
    public static func richest(_ transcripts: [Transcript]) -> (transcript: Transcript, format: TranscriptFormat)? {
        var best: (transcript: Transcript, format: TranscriptFormat)?
        for transcript in transcripts {
            guard let format = TranscriptFormat(type: transcript.type, url: transcript.url) else { continue }
            if best.map({ format.richness > $0.format.richness }) ?? true { best = (transcript, format) }
        }
        return best
    }
}

/// A transcript as read: its cues in the order given.
public struct TranscriptDocument: Sendable, Equatable {
    public var format: TranscriptFormat
    public var cues: [TranscriptCue]

    public init(format: TranscriptFormat, cues: [TranscriptCue]) {
        self.format = format
        self.cues = cues
    }

    /// Whether any cue says when it was spoken.
    public var isTimed: Bool { cues.contains { $0.start != nil } }

    /// The largest transcript read (an hour's SRT is about 100 KB; a 50 MB one is
    /// no transcript anyone wrote).
    public static let byteLimit = 8 << 20

    /// The cues joined into paragraphs for reading and searching: consecutive cues
    /// of one speaker, up to `seconds` apart from the paragraph's start and
    /// `characters` long. Each paragraph starts when its first cue does.
    public func paragraphs(seconds: Double = 20, characters: Int = 480) -> [TranscriptCue] {
        timedParagraphs(seconds: seconds, characters: characters).map(\.paragraph)
    }

    /// Where a cue starts in a paragraph's text (a UTF-8 offset) and when it
    /// was spoken: a word found in a paragraph is said at the time of the cue
    /// that holds it, up to 20 s after the paragraph's start.
    public struct CueStart: Sendable, Equatable {
        public var offset: Int
        public var seconds: Double

        public init(offset: Int, seconds: Double) {
            self.offset = offset
            self.seconds = seconds
        }
    }

    /// ``paragraphs(seconds:characters:)``, each with where its timed cues start.
    public func timedParagraphs(seconds: Double = 20, characters: Int = 480) -> [(
        paragraph: TranscriptCue, cueStarts: [CueStart]
    )] {
        var result: [(paragraph: TranscriptCue, cueStarts: [CueStart])] = []
        for cue in cues {
            if var last = result.last, last.paragraph.speaker == cue.speaker, let start = last.paragraph.start,
                let at = cue.start, at - start < seconds,
                last.paragraph.text.count + cue.text.count < characters
            {
                last.paragraph.text += " "
                last.cueStarts.append(CueStart(offset: last.paragraph.text.utf8.count, seconds: at))
                last.paragraph.text += cue.text
                last.paragraph.end = cue.end ?? last.paragraph.end
                result[result.count - 1] = last
            } else {
                result.append((cue, cue.start.map { [CueStart(offset: 0, seconds: $0)] } ?? []))
            }
        }
        return result
    }

    /// Reads a transcript fetched from `url` in `format`. Malformed input fails
    /// naming the line (SRT, WebVTT) or JSON path; all text is sanitized, and
    /// HTML's scripts and styles are dropped.
    public static func parse(_ data: Data, format: TranscriptFormat, from url: URL) throws(FeedError)
        -> TranscriptDocument
    {
        guard data.count <= byteLimit else { throw .bodyTooLarge(url: url, limit: byteLimit) }
        let cues: [TranscriptCue]
        switch format {
        case .json:
            do {
                cues = try JSONDecoder().decode(JSONTranscript.self, from: data).cues
            } catch {
                throw FeedError(decoding: error, url: url, byteCount: data.count)
            }
        case .webVTT, .srt:
            do throws(CueFailure) {
                cues = try CueText.parse(text(of: data), webVTT: format == .webVTT)
            } catch {
                throw .invalidTranscript(url: url, detail: "\(format.name) line \(error.line): \(error.problem)")
            }
        case .html: cues = HTMLTranscript.cues(text(of: data))
        case .plain: cues = plainCues(text(of: data))
        }
        return TranscriptDocument(format: format, cues: cues)
    }

    /// UTF-8 (a byte-order mark dropped), else Windows-1252 as feeds in the wild.
    static func text(of data: Data) -> String {
        if let text = String(data: data, encoding: .utf8) {
            return text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        }
        return String(data: data, encoding: .windowsCP1252) ?? String(decoding: data, as: UTF8.self)
    }

    /// Plain text: a cue for each paragraph (lines split by blank lines).
    static func plainCues(_ text: String) -> [TranscriptCue] {
        var cues: [TranscriptCue] = []
        var paragraph: [Substring] = []
        func flush() {
            let line = SafeText.line(paragraph.joined(separator: " ")).split(separator: " ").joined(separator: " ")
            if !line.isEmpty { cues.append(TranscriptCue(start: nil, text: line)) }
            paragraph.removeAll()
        }
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.allSatisfy(\.isWhitespace) { flush() } else { paragraph.append(line) }
        }
        flush()
        return cues
    }
}

/// Where SRT or WebVTT is malformed: the line (from 1) and what is wrong there.
struct CueFailure: Error {
    let line: Int
    let problem: String
}

/// SRT and WebVTT: blocks split by blank lines, each a cue (an optional
/// identifier, a `start --> end` line, the text) or, in WebVTT, a NOTE, STYLE or
/// REGION block.
enum CueText {
    static func parse(_ text: String, webVTT: Bool) throws(CueFailure) -> [TranscriptCue] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        var cues: [TranscriptCue] = []
        var index = 0
        if webVTT {
            guard let first = lines.first, first.hasPrefix("WEBVTT") else {
                throw CueFailure(line: 1, problem: "a WebVTT file starts with 'WEBVTT'")
            }
            // The header runs to the first blank line.
            while index < lines.count, !lines[index].allSatisfy(\.isWhitespace) { index += 1 }
        }
        while index < lines.count {
            while index < lines.count, lines[index].allSatisfy(\.isWhitespace) { index += 1 }
            guard index < lines.count else { break }
            let blockStart = index
            var block: [Substring] = []
            while index < lines.count, !lines[index].allSatisfy(\.isWhitespace) {
                block.append(lines[index])
                index += 1
            }
            if webVTT, let word = block[0].split(separator: " ").first, ["NOTE", "STYLE", "REGION"].contains(word) {
                continue
            }
            guard let timing = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else {
                throw CueFailure(
                    line: blockStart + 1,
                    problem:
                        "a cue without a time ('00:01:02\(webVTT ? "." : ",")500 --> 00:01:05\(webVTT ? "." : ",")000')"
                )
            }
            let line = blockStart + timing + 1
            let times = block[timing].components(separatedBy: "-->")
            let endField = times[1].split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) ?? ""
            guard let start = seconds(times[0].trimmingCharacters(in: .whitespaces)) else {
                throw CueFailure(line: line, problem: "'\(SafeText.line(times[0]).prefix(40))' is not a time")
            }
            guard let end = seconds(endField) else {
                throw CueFailure(line: line, problem: "'\(SafeText.line(endField).prefix(40))' is not a time")
            }
            var speaker: String?
            let payload = block[(timing + 1)...].map { line in
                let (voice, text) = Self.voice(line)
                if speaker == nil { speaker = voice }
                return text
            }
            let text = FeedText.line(stripTags(payload.joined(separator: " ")))
            if text.isEmpty { continue }
            cues.append(TranscriptCue(start: start, end: max(start, end), speaker: speaker, text: text))
        }
        return cues
    }

    /// `01:02:03,500`, `01:02:03.500`, `02:03.500`: a cue time (minutes at least,
    /// a comma or a point before the fraction).
    static func seconds(_ text: String) -> Double? {
        ClockTime.seconds(text, fields: 2...3, decimalComma: true)
    }

    /// WebVTT's voice span `<v Name>` or `<v.class Name>`: the name, and the line.
    static func voice(_ line: Substring) -> (String?, Substring) {
        guard line.hasPrefix("<v"), let close = line.firstIndex(of: ">") else { return (nil, line) }
        let inside = line[line.index(line.startIndex, offsetBy: 2)..<close]
        guard inside.first == " " || inside.first == "." || inside.first == "\t" else { return (nil, line) }
        let name = inside.drop { $0 != " " && $0 != "\t" }
        let speaker = FeedText.line(String(name))
        return (speaker.isEmpty ? nil : speaker, line[line.index(after: close)...])
    }

    /// Cue text without its markup (`<i>`, `<b>`, `<c.x>`, timestamps, `<font>`).
    static func stripTags(_ text: String) -> String {
        guard text.contains("<") else { return text }
        var out = ""
        var inTag = false
        for character in text {
            switch character {
            case "<": inTag = true
            case ">" where inTag: inTag = false
            default: if !inTag { out.append(character) }
            }
        }
        return out
    }
}

/// The Podcast Index JSON transcript. Segments starting before 0 or past a week
/// are dropped, as chapters are.
struct JSONTranscript: Decodable {
    let cues: [TranscriptCue]

    private enum CodingKeys: String, CodingKey { case segments }

    private struct Segment: Decodable {
        let speaker: String?
        let startTime: Double
        let endTime: Double?
        let body: String
    }

    init(from decoder: any Decoder) throws {
        let segments = try decoder.container(keyedBy: CodingKeys.self).decode([Segment].self, forKey: .segments)
        cues = segments.compactMap { segment in
            guard (0...ChapterList.latestStart).contains(segment.startTime) else { return nil }
            let text = FeedText.line(segment.body)
            guard !text.isEmpty else { return nil }
            let speaker = segment.speaker.map(FeedText.line).flatMap { $0.isEmpty ? nil : $0 }
            let end = segment.endTime.flatMap { (segment.startTime...ChapterList.latestStart).contains($0) ? $0 : nil }
            return TranscriptCue(start: segment.startTime, end: end, speaker: speaker, text: text)
        }
    }
}

/// An HTML transcript. The Podcast Index's shape (`<cite>Speaker:</cite>
/// <time>0:00</time><p>text</p>`) gives speakers and times; any other HTML
/// gives a cue for each paragraph. Scripts, styles and comments are dropped.
///
/// Read over UTF-8 bytes, each byte looked at a bounded number of times: a
/// search through Foundation's `range(of:)` on what is left copies it, and a
/// megabyte of `<!---->` took seconds.
enum HTMLTranscript {
    static func cues(_ html: String) -> [TranscriptCue] {
        let bytes = Array(html.utf8)
        var cues: [TranscriptCue] = []
        var speaker: String?
        var time: Double?
        var text: [UInt8] = []
        var capture: (tag: String, text: [UInt8])?
        func flush() {
            let line = FeedText.line(String(decoding: text, as: UTF8.self))
            text.removeAll(keepingCapacity: true)
            guard !line.isEmpty else { return }
            cues.append(TranscriptCue(start: time, speaker: speaker, text: line))
            time = nil
        }
        func keep(_ range: Range<Int>) {
            if capture != nil { capture?.text += bytes[range] } else { text += bytes[range] }
        }
        var index = 0
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            keep(index..<open)
            if Self.starts(bytes, at: open, with: Self.commentOpen) {
                index =
                    Self.find(Self.commentClose, in: bytes, from: open + 4).map { $0 + Self.commentClose.count }
                    ?? bytes.count
                continue
            }
            guard let close = bytes[open...].firstIndex(of: UInt8(ascii: ">")) else {
                index = open
                break
            }
            let tag = bytes[(open + 1)..<close]
            index = close + 1
            let closing = tag.first == UInt8(ascii: "/")
            let name = String(
                decoding: tag.drop { $0 == UInt8(ascii: "/") }.prefix { Self.isNameByte($0) },
                as: UTF8.self
            ).lowercased()
            switch name {
            case "script" where !closing, "style" where !closing:
                // To the end of the closing tag, or of the document.
                let end = Self.find(Array("</\(name)".utf8), in: bytes, from: index, caseInsensitive: true)
                index = end.flatMap { bytes[$0...].firstIndex(of: UInt8(ascii: ">")) }.map { $0 + 1 } ?? bytes.count
            case "cite", "time":
                if !closing {
                    flush()
                    capture = (name, [])
                } else if let captured = capture, captured.tag == name {
                    capture = nil
                    let value = FeedText.line(String(decoding: captured.text, as: UTF8.self))
                    if name == "time" {
                        time = ClockTime.seconds(value, fields: 1...3)
                    } else {
                        speaker = value.hasSuffix(":") ? String(value.dropLast()) : value
                        if speaker?.isEmpty == true { speaker = nil }
                    }
                }
            case "p", "br", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "blockquote":
                flush()
            default: break
            }
        }
        keep(index..<bytes.count)
        flush()
        return cues
    }

    private static let commentOpen = Array("<!--".utf8)
    private static let commentClose = Array("-->".utf8)

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func starts(_ bytes: [UInt8], at index: Int, with prefix: [UInt8]) -> Bool {
        bytes.count - index >= prefix.count && bytes[index..<(index + prefix.count)].elementsEqual(prefix)
    }

    /// Where `needle` (ASCII) first starts in `bytes` at or after `from`: a scan
    /// for its first byte, then a compare, so linear for the short needles here.
    static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int, caseInsensitive: Bool = false) -> Int? {
        guard let first = needle.first, from <= bytes.count else { return nil }
        let fold: (UInt8) -> UInt8 = caseInsensitive ? { $0 | 0x20 } : { $0 }
        let lead = fold(first)
        var index = from
        while index + needle.count <= bytes.count {
            if fold(bytes[index]) == lead,
                zip(bytes[index..<(index + needle.count)], needle).allSatisfy({ fold($0) == fold($1) })
            {
                return index
            }
            index += 1
        }
        return nil
    }
}
