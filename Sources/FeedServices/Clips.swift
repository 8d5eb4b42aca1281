import Foundation
import Library
import PlainText
import Subprocess
import SystemPackage
import WebBasics

/// Why a clip was not made; nothing was written. `code` for programs.
package struct ClipProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package let code: String
    package let description: String

    package init(code: String, description: String) {
        self.code = code
        self.description = description
    }

    static func outside(_ ref: String, from: Double, to: Double, length: Double) -> ClipProblem {
        ClipProblem(
            code: "outside-episode",
            description: "\(ClipSpan.clock(from))-\(ClipSpan.clock(to)) is not within \(ref), which is "
                + "\(ClipSpan.clock(length)) long: FROM and TO must lie within 0:00-\(ClipSpan.clock(length))"
        )
    }

    static let backwards = ClipProblem(
        code: "bad-span",
        description: "a clip runs from FROM to a later TO, at least half a second on"
    )

    static let noEnd = ClipProblem(code: "bad-span", description: "a clip needs TO, or --length (30s, 1m)")

    static func notDownloaded(_ ref: String) -> ClipProblem {
        ClipProblem(
            code: "not-downloaded",
            description: "\(ref) is not downloaded: a clip is cut from the file ('get \(ref)' first)"
        )
    }

    static func notInLibrary(_ ref: String) -> ClipProblem {
        ClipProblem(
            code: "not-in-library",
            description: "\(ref) is not in the library: clips are of subscriptions' episodes"
        )
    }

    static func exists(_ path: String) -> ClipProblem {
        ClipProblem(code: "exists", description: "\(SafeText.line(path)) exists: remove it or name another FILE")
    }

    static func noTranscript(_ ref: String) -> ClipProblem {
        ClipProblem(
            code: "no-transcript",
            description: "\(ref) has no transcript kept: 'transcript \(ref)' fetches it, then --transcript works"
        )
    }

    static let noFFmpeg = ClipProblem(
        code: "no-ffmpeg",
        description: "clips are cut by FFmpeg, which is not installed ('apt install ffmpeg')"
    )

    static func ffmpeg(_ what: String, _ message: String) -> ClipProblem {
        ClipProblem(code: "ffmpeg-failed", description: "FFmpeg could not \(what): \(FFmpeg.complaint(message))")
    }
}

/// The arithmetic of a clip's span, apart from any file.
package enum ClipSpan {
    /// The shortest clip.
    static let shortest = 0.5
    /// How far a cut may land from where it was asked.
    package static let tolerance = 0.1

    /// The span from `from` to `to` (or `from` plus `length`) within an episode
    /// `duration` seconds long.
    package static func resolve(
        from: Double,
        to: Double?,
        length: Double?,
        duration: Double,
        ref: String
    ) -> Result<ClosedRange<Double>, ClipProblem> {
        guard let end = to ?? length.map({ from + $0 }) else { return .failure(.noEnd) }
        guard end - from >= shortest else { return .failure(.backwards) }
        // A feed's or a file's length is rounded: a few hundredths past it is the end.
        guard from >= 0, end <= duration + 0.05 else {
            return .failure(.outside(ref, from: from, to: end, length: duration))
        }
        return .success(from...min(end, duration))
    }

    /// `12:00`, `1:02:03`; tenths when there are any (`0:05.5`).
    package static func clock(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds))
        let (hours, minutes, rest) = (whole / 3600, whole % 3600 / 60, whole % 60)
        var text = hours > 0 ? "\(hours):" + pad(minutes) + ":" + pad(rest) : "\(minutes):" + pad(rest)
        let tenths = Int(((seconds - Double(whole)) * 10).rounded())
        if tenths > 0, tenths < 10 { text += ".\(tenths)" }
        return text
    }

    /// `0m05s-0m25s`: a span in a file name.
    static func fileName(_ span: ClosedRange<Double>) -> String {
        func part(_ seconds: Double) -> String {
            let whole = Int(seconds)
            return "\(whole / 60)m" + pad(whole % 60) + "s"
        }
        return part(span.lowerBound) + "-" + part(span.upperBound)
    }

    private static func pad(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
}

/// A transcript's cues within a clip, as SubRip (`.srt`) with times from the
/// clip's start.
package enum ClipTranscript {
    /// One cue: when it starts and ends (nil: where the next begins is unknown),
    /// and its words.
    package struct Cue: Sendable, Equatable {
        package var start: Double
        package var end: Double?
        package var text: String
    }

    /// The cues of a kept transcript: each paragraph split where its cues start,
    /// each ending where the next begins.
    package static func cues(of transcript: StoredTranscript) -> [Cue] {
        var cues: [Cue] = []
        for (index, paragraph) in transcript.paragraphs.enumerated() {
            guard let start = paragraph.start else { continue }
            let utf8 = Array(paragraph.text.utf8)
            let starts =
                transcript.cueStarts.indices.contains(index) && !transcript.cueStarts[index].isEmpty
                ? transcript.cueStarts[index] : [.init(offset: 0, seconds: start)]
            for (number, cue) in starts.enumerated() {
                let from = min(max(0, cue.offset), utf8.count)
                let to = number + 1 < starts.count ? min(max(from, starts[number + 1].offset), utf8.count) : utf8.count
                var text = String(decoding: utf8[from..<to], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if number == 0, let speaker = paragraph.speaker { text = speaker + ": " + text }
                if let last = cues.indices.last, cues[last].end == nil { cues[last].end = cue.seconds }
                cues.append(Cue(start: cue.seconds, end: nil, text: text))
            }
        }
        return cues
    }

    /// The cues said within `span`, cut to it, as SRT numbered from 1 with
    /// times from the span's start; empty when none are.
    package static func srt(_ cues: [Cue], within span: ClosedRange<Double>) -> String {
        var blocks: [String] = []
        for cue in cues where cue.start < span.upperBound && (cue.end ?? .infinity) > span.lowerBound {
            let from = max(cue.start, span.lowerBound) - span.lowerBound
            let to = min(cue.end ?? span.upperBound, span.upperBound) - span.lowerBound
            guard to > from, !cue.text.isEmpty else { continue }
            blocks.append("\(blocks.count + 1)\n\(time(from)) --> \(time(to))\n\(cue.text)\n")
        }
        return blocks.joined(separator: "\n")
    }

    /// `00:01:02,500`.
    static func time(_ seconds: Double) -> String {
        let millis = Int((max(0, seconds) * 1000).rounded())
        let (hours, minutes, rest, ms) = (millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60, millis % 1000)
        return String(format: "%02d:%02d:%02d,%03d", hours, minutes, rest, ms)
    }
}

/// A clip as every front end gives it: `clip --json` and each of `clips --json`.
package struct ClipEntry: Codable, Sendable, Equatable {
    /// From 1, as `clips` numbers them.
    package var number: Int
    /// `P:E` while the episode is in the library.
    @Nullable package var ref: String?
    package var podcast: String
    package var title: String
    /// Seconds into the episode.
    package var start: Double
    package var end: Double
    package var path: String
    /// The `.srt` beside it, when one was written.
    @Nullable package var transcript: String?
    /// True when it was encoded again rather than cut from the file as it is.
    package var reencoded: Bool

    package init(number: Int, ref: String?, _ clip: StoredClip) {
        self.number = number
        self.ref = ref
        podcast = SafeText.line(clip.podcastTitle)
        title = SafeText.line(clip.episodeTitle)
        start = clip.start
        end = clip.end
        path = clip.path
        transcript = clip.transcriptPath
        reencoded = clip.reencoded
    }
}

/// What `clip` is asked to cut.
package struct ClipRequest: Sendable {
    package var episode: EpisodeRef
    /// `P:E`, as the episode was named.
    package var ref: String
    /// The downloaded file.
    package var source: URL
    package var from: Double
    package var to: Double?
    package var length: Double?
    /// Where to write it; nil: `{download-dir}/clips/`.
    package var output: URL?
    package var transcript: Bool

    package init(
        episode: EpisodeRef,
        ref: String,
        source: URL,
        from: Double,
        to: Double?,
        length: Double?,
        output: URL?,
        transcript: Bool
    ) {
        self.episode = episode
        self.ref = ref
        self.source = source
        self.from = from
        self.to = to
        self.length = length
        self.output = output
        self.transcript = transcript
    }
}

extension Services {
    /// Cuts a span of a downloaded episode into a file of its own, tagged
    /// (title `EPISODE (12:00–13:00)`, album the podcast, a comment with its
    /// address and the span), with the transcript's cues beside it as `.srt`
    /// when asked. Cut without encoding again when that lands within
    /// ``ClipSpan/tolerance`` of the span, encoded again otherwise. Written under
    /// a temporary name and renamed: a failure leaves no file under the final
    /// name, and nothing is recorded.
    package func clip(_ request: ClipRequest) async throws -> ClipEntry {
        let ref = request.ref
        guard FileManager.default.fileExists(atPath: request.source.path) else { throw ClipProblem.notDownloaded(ref) }
        guard let ffmpeg = FFmpeg.find(), let ffprobe = FFmpeg.find("ffprobe") else {
            throw ClipProblem.noFFmpeg
        }
        let duration = try await Self.duration(of: request.source, ffprobe: ffprobe)
        let span: ClosedRange<Double>
        switch ClipSpan.resolve(
            from: request.from,
            to: request.to,
            length: request.length,
            duration: duration,
            ref: ref
        ) {
        case .success(let resolved): span = resolved
        case .failure(let problem): throw problem
        }
        let library = try self.library.open()
        guard let episode = try await library.resolve([request.episode]).first else {
            throw ClipProblem.notInLibrary(ref)
        }
        var cues: [ClipTranscript.Cue] = []
        if request.transcript {
            guard let kept = try await library.transcript(of: request.episode.episode) else {
                throw ClipProblem.noTranscript(ref)
            }
            cues = ClipTranscript.cues(of: kept)
        }
        let ext = request.source.pathExtension.isEmpty ? "mp3" : request.source.pathExtension
        var output =
            request.output
            ?? configuration.downloadDirectory.appendingPathComponent("clips", isDirectory: true)
            .appendingPathComponent("\(ref.replacingOccurrences(of: ":", with: "-"))_\(ClipSpan.fileName(span)).\(ext)")
        // A FILE without an extension is of the episode's kind.
        if output.pathExtension.isEmpty { output.appendPathExtension(ext) }
        let srt = output.deletingPathExtension().appendingPathExtension("srt")
        for file in [output] + (request.transcript ? [srt] : []) where FileManager.default.fileExists(atPath: file.path)
        {
            throw ClipProblem.exists(file.path)
        }
        let folder = output.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let partial = folder.appendingPathComponent(".\(output.deletingPathExtension().lastPathComponent).part")
            .appendingPathExtension(output.pathExtension)
        defer { try? FileManager.default.removeItem(at: partial) }
        let named =
            "\(SafeText.line(episode.stored.title)) (\(ClipSpan.clock(span.lowerBound))–\(ClipSpan.clock(span.upperBound)))"
        let tags = [
            "title=" + named, "album=" + SafeText.line(episode.podcast.title),
            "comment=" + "\(URL.redacted(episode.stored.audioURL)) \(ClipSpan.clock(span.lowerBound))–"
                + ClipSpan.clock(span.upperBound),
        ]
        // A copy keeps the codec; a file of another kind is always encoded.
        var reencoded = output.pathExtension.lowercased() != ext.lowercased()
        if !reencoded {
            try await Self.cut(request.source, span: span, to: partial, tags: tags, copy: true, ffmpeg: ffmpeg)
            let made = try await Self.duration(of: partial, ffprobe: ffprobe)
            reencoded = abs(made - (span.upperBound - span.lowerBound)) > ClipSpan.tolerance
        }
        if reencoded {
            try await Self.cut(request.source, span: span, to: partial, tags: tags, copy: false, ffmpeg: ffmpeg)
        }
        if request.transcript {
            try Data(ClipTranscript.srt(cues, within: span).utf8).write(to: srt, options: .atomic)
        }
        do {
            // No clobbering: a file that appeared since is left as it is.
            try FileManager.default.moveItem(at: partial, to: output)
        } catch {
            if request.transcript { try? FileManager.default.removeItem(at: srt) }
            guard FileManager.default.fileExists(atPath: output.path) else { throw error }
            throw ClipProblem.exists(output.path)
        }
        let record = StoredClip(
            episodeID: request.episode.episode,
            podcastTitle: episode.podcast.title,
            episodeTitle: episode.stored.title,
            start: span.lowerBound,
            end: span.upperBound,
            path: output.path,
            transcriptPath: request.transcript ? srt.path : nil,
            reencoded: reencoded
        )
        let clip: StoredClip
        do {
            clip = try await library.recordClip(record)
        } catch {
            // Unrecorded, it is not made: nothing is left.
            try? FileManager.default.removeItem(at: output)
            if request.transcript { try? FileManager.default.removeItem(at: srt) }
            throw error
        }
        return ClipEntry(number: try await library.clips().count, ref: episode.ref, clip)
    }

    /// The clips made, numbered, with each one's `P:E` while its episode is in
    /// the library.
    package func clips() async throws -> [ClipEntry] {
        guard let library = try self.library.openIfExists() else { return [] }
        let clips = try await library.clips()
        var listed: [Int64: String] = [:]
        for clip in clips {
            guard let id = clip.episodeID, listed[id] == nil, let stored = try await library.episode(id) else {
                continue
            }
            listed[id] = try await library.resolve([EpisodeRef(podcast: stored.podcastID, episode: id)]).first?.ref
        }
        return clips.enumerated().map {
            ClipEntry(number: $0.offset + 1, ref: $0.element.episodeID.flatMap { listed[$0] }, $0.element)
        }
    }

    /// A file's length in seconds as a player plays it: FFmpeg's length less
    /// where its audio starts (an MP3 encoder's delay, which players skip).
    private static func duration(of file: URL, ffprobe: String) async throws -> Double {
        let result = try await Subprocess.run(
            .path(FilePath(ffprobe)),
            arguments: [
                "-v", "error", "-select_streams", "a:0", "-show_entries", "format=duration:stream=start_time",
                "-of", "default=noprint_wrappers=1", file.path,
            ],
            output: .string(limit: 1 << 16),
            error: .string(limit: 1 << 16)
        )
        var values: [String: Double] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        guard result.terminationStatus.isSuccess, let seconds = values["duration"] else {
            throw ClipProblem.ffmpeg("read \(file.lastPathComponent)", result.standardError)
        }
        return seconds - max(0, values["start_time"] ?? 0)
    }

    /// FFmpeg writes `span` of `source` to `file`, tagged, as it is (`copy`) or
    /// encoded again for `file`'s kind.
    private static func cut(
        _ source: URL,
        span: ClosedRange<Double>,
        to file: URL,
        tags: [String],
        copy: Bool,
        ffmpeg: String
    ) async throws {
        var arguments = [
            "-v", "error", "-nostdin", "-y", "-ss", String(span.lowerBound), "-i", source.path,
            "-t", String(span.upperBound - span.lowerBound), "-map", "0:a:0", "-map_metadata", "-1",
        ]
        if copy { arguments += ["-c", "copy"] }
        for tag in tags { arguments += ["-metadata", tag] }
        arguments.append(file.path)
        if let complaint = try await FFmpeg.run(ffmpeg, arguments) {
            throw ClipProblem.ffmpeg("cut \(source.lastPathComponent)", complaint)
        }
    }
}
