import Foundation

/// A real, playable MP3 whose chapters are inside the file: an ID3v2.4 tag with a
/// table of contents (`CTOC`) and a `CHAP` frame for each chapter, then silent
/// MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz, mono: 417 bytes and 26 ms
/// each). mpv reads the chapters through FFmpeg (its `chapter-list`).
public struct ChapteredMedia: Sendable, Equatable, ServedMedia {
    /// The chapters in the file: "Intro" at 0, and at 4 s a title carrying an
    /// escape sequence, which feedsh must not pass to the terminal.
    public static let chapters: [(start: Int, title: String)] = [(0, "Intro"), (4, "Main\u{1B}[31m part")]
    public static let seconds = 10
    static let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0xC0] + [UInt8](repeating: 0, count: 413)
    static let frames = seconds * 44_100 / 1152 + 1

    public init() {}

    let id3 = ChapteredMedia.id3Tag()
    public var size: Int { id3.count + Self.frames * Self.frame.count }
    var tag: String { "chaptered" }
    var contentType: String { "audio/mpeg" }

    /// The whole file.
    public var allBytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            write(0..<size, into: UnsafeMutableRawBufferPointer(buffer))
            count = size
        }
    }

    func write(_ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) {
        for (offset, position) in range.enumerated() {
            buffer[offset] =
                position < id3.count ? id3[position] : Self.frame[(position - id3.count) % Self.frame.count]
        }
    }

    /// A 28-bit size as ID3v2.4 writes it: 7 bits a byte.
    private static func synchsafe(_ value: Int) -> [UInt8] {
        [21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) }
    }

    private static func frame(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + synchsafe(body.count) + [0, 0] + body
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    static func id3Tag() -> [UInt8] {
        let ids = chapters.indices.map { "ch\($0)" }
        // Flags 0x03: the top-level table, ordered.
        var body = frame(
            "CTOC",
            Array("toc\0".utf8) + [0x03, UInt8(ids.count)] + ids.flatMap { Array(($0 + "\0").utf8) }
        )
        for (index, chapter) in chapters.enumerated() {
            let end = index + 1 < chapters.count ? chapters[index + 1].start : seconds
            let title = frame("TIT2", [0x03] + Array(chapter.title.utf8))
            body += frame(
                "CHAP",
                Array((ids[index] + "\0").utf8) + bigEndian(UInt32(chapter.start * 1000))
                    + bigEndian(UInt32(end * 1000)) + bigEndian(.max) + bigEndian(.max) + title
            )
        }
        return Array("ID3".utf8) + [4, 0, 0] + synchsafe(body.count) + body
    }
}
