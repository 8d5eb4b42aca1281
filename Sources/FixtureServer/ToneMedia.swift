import Foundation

/// Bytes the fixture server serves as a file: any range of them can be written
/// without the bytes before it.
protocol ServedMedia: Sendable {
    var size: Int { get }
    /// Part of the ETag: changes when the bytes do.
    var tag: String { get }
    var contentType: String { get }
    func write(_ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer)
}

extension SyntheticMedia: ServedMedia {
    var tag: String { String(seed, radix: 16) }
    var contentType: String { "audio/mpeg" }
}

/// A real, playable WAV file: a 400 Hz tone, 8 kHz mono 16-bit PCM (16,000 bytes a
/// second), for playback tests with a real player.
public struct ToneMedia: Sendable, Equatable, ServedMedia {
    public static let sampleRate = 8000
    static let frequency = 400
    static let headerSize = 44

    public let seconds: Int
    /// Seconds of the file that are silent (zero samples), for skip-silence tests.
    public let silence: Range<Int>?

    public init(seconds: Int, silence: Range<Int>? = nil) {
        self.seconds = seconds
        self.silence = silence
    }

    var samples: Int { seconds * Self.sampleRate }
    public var size: Int { Self.headerSize + samples * 2 }
    var tag: String { "tone-\(seconds)" + (silence.map { "-\($0.lowerBound)-\($0.upperBound)" } ?? "") }
    var contentType: String { "audio/wav" }

    /// The RIFF header: PCM, one channel, 16 bits.
    var header: [UInt8] {
        var bytes: [UInt8] = []
        func append(_ text: String) { bytes += Array(text.utf8) }
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { bytes += $0 } }
        append("RIFF")
        append32(size - 8)
        append("WAVE")
        append("fmt ")
        append32(16)
        append16(1)
        append16(1)
        append32(Self.sampleRate)
        append32(Self.sampleRate * 2)
        append16(2)
        append16(16)
        append("data")
        append32(samples * 2)
        return bytes
    }

    /// One period of the tone as little-endian samples: 400 Hz is 20 samples at
    /// 8 kHz, so any byte of the file is a lookup.
    static let period: [UInt8] = (0..<(sampleRate / frequency)).flatMap { index -> [UInt8] in
        let value = Int16(8000 * sin(2 * Double.pi * Double(index * frequency) / Double(sampleRate)))
        let bits = UInt16(bitPattern: value)
        return [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8)]
    }

    func write(_ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) {
        let range = range.clamped(to: 0..<size)
        let header = header
        let period = Self.period
        let quiet = silence.map {
            (Self.headerSize + $0.lowerBound * Self.sampleRate * 2)..<(Self.headerSize + $0.upperBound * Self.sampleRate
                * 2)
        }
        for (out, offset) in range.enumerated() {
            if quiet?.contains(offset) == true {
                buffer[out] = 0
                continue
            }
            buffer[out] =
                offset < Self.headerSize ? header[offset] : period[(offset - Self.headerSize) % period.count]
        }
    }

    /// The whole file, for tests.
    public var allBytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            write(0..<size, into: UnsafeMutableRawBufferPointer(buffer))
            count = size
        }
    }
}
