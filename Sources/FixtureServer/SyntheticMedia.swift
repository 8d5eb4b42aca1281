/// Deterministic pseudo-random bytes standing in for episode audio.
///
/// Byte `i` of a file depends only on the seed and `i`, so any range can be generated
/// without the bytes before it, and a test can compute exactly what the server sent.
public struct SyntheticMedia: Sendable, Equatable {
    /// The seed every byte is derived from.
    public let seed: UInt64
    /// The file's length in bytes.
    public let size: Int

    public init(seed: UInt64, size: Int) {
        precondition(size >= 0, "size must not be negative")
        self.seed = seed
        self.size = size
    }

    /// The media served at `key` (a path such as `1386867488/1000700000001.mp3`) in
    /// `version` (bumped by the `etag=` fault, so a changed ETag also changes content).
    /// Sizes fall between 3 and 8 MB unless `size` is given.
    public init(key: String, version: Int = 0, size: Int? = nil) {
        let seed = fnv1a64(key) &+ UInt64(truncatingIfNeeded: version) &* 0x9E37_79B9_7F4A_7C15
        self.init(seed: seed, size: size ?? (3_000_000 + Int(seed % 5_000_000)))
    }

    /// Writes the bytes in `range` (clamped to the file) into `buffer`.
    public func write(_ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) {
        let range = range.clamped(to: 0..<size)
        precondition(buffer.count >= range.count)
        var out = 0
        var offset = range.lowerBound
        while offset < range.upperBound {
            let word = splitmix64(seed &+ UInt64(offset / 8))
            let shift = UInt64((offset % 8) * 8)
            buffer[out] = UInt8(truncatingIfNeeded: word >> shift)
            out += 1
            offset += 1
            // Whole words at a time once aligned.
            while offset % 8 == 0, offset + 8 <= range.upperBound {
                let whole = splitmix64(seed &+ UInt64(offset / 8)).littleEndian
                withUnsafeBytes(of: whole) { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[out..<out + 8]).copyMemory(from: bytes)
                }
                out += 8
                offset += 8
            }
        }
    }

    /// The bytes in `range`, as an array: convenient in tests.
    public func bytes(_ range: Range<Int>) -> [UInt8] {
        let range = range.clamped(to: 0..<size)
        return [UInt8](unsafeUninitializedCapacity: range.count) { buffer, count in
            write(range, into: UnsafeMutableRawBufferPointer(buffer))
            count = range.count
        }
    }

    /// The whole file.
    public var allBytes: [UInt8] { bytes(0..<size) }
}

private func splitmix64(_ x: UInt64) -> UInt64 {
    var z = x &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

func fnv1a64(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return hash
}
