/// A gzip stream (RFC 1952) of stored deflate blocks (RFC 1951, BTYPE 00): valid
/// gzip that any decoder reads, made without zlib, for the `gzip` fault.
enum Gzip {
    static func stored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let last = offset + count == data.count
            out.append(last ? 1 : 0)
            out.append(contentsOf: littleEndian(UInt16(count)))
            out.append(contentsOf: littleEndian(~UInt16(count)))
            out.append(contentsOf: data[offset..<offset + count])
            offset += count
        } while offset < data.count
        out.append(contentsOf: littleEndian(crc32(data)))
        out.append(contentsOf: littleEndian(UInt32(truncatingIfNeeded: data.count)))
        return out
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}

/// A gzip bomb: `prefix`, then `padding` spaces, then `suffix`, in one deflate
/// block of fixed Huffman codes where the spaces are back-references of 258 bytes
/// (13 bits each): a GiB of padding compresses to under 7 MB.
///
/// Never held whole: eight back-references are 104 bits, 13 bytes, so after the
/// first eight the stream repeats a 13-byte pattern, and any range of it is made
/// from the head, the pattern and the tail (``copy(_:into:)``). The trailer's CRC
/// is computed for documents up to ``checkedSize`` (a small one is real gzip that
/// any decoder reads whole); past that it is 0, for a client must stop long before
/// it would check it. Its length is the document's, modulo 2^32.
struct GzipBomb: Sendable {
    private let head: [UInt8]
    private let pattern: [UInt8]
    private let repeats: Int
    private let tail: [UInt8]

    var count: Int { head.count + pattern.count * repeats + tail.count }
    static let checkedSize = 8 << 20

    init(prefix: [UInt8], padding: Int, suffix: [UInt8]) {
        var bits = Gzip.BitWriter()
        bits.out = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
        bits.write(1, count: 1)  // the last block
        bits.write(1, count: 2)  // fixed Huffman codes
        for byte in prefix { bits.literal(byte) }
        var references = 0
        var spaces = 0
        if padding > 0 {
            bits.literal(0x20)
            references = (padding - 1) / 258
            spaces = (padding - 1) % 258
        }
        // The first eight references end the head; the next eight are the pattern,
        // which the writer's leftover bits then repeat exactly.
        let periods = references / 8
        var left = references
        var start: [UInt8] = []
        if periods >= 2 {
            bits.reference(count: 8)
            let headCount = bits.out.count
            bits.reference(count: 8)
            start = Array(bits.out[..<headCount])
            pattern = Array(bits.out[headCount...])
            repeats = periods - 1
            bits.out = []
            left -= periods * 8
        } else {
            pattern = []
            repeats = 0
        }
        bits.reference(count: left)
        for _ in 0..<spaces { bits.literal(0x20) }
        for byte in suffix { bits.literal(byte) }
        bits.write(0, count: 7)  // end of block: code 256
        bits.flush()
        let size = prefix.count + padding + suffix.count
        let crc = size <= Self.checkedSize ? Gzip.crc32(prefix + Array(repeating: 0x20, count: padding) + suffix) : 0
        bits.out.append(contentsOf: Gzip.littleEndian(crc))
        bits.out.append(contentsOf: Gzip.littleEndian(UInt32(truncatingIfNeeded: size)))
        if start.isEmpty {
            head = bits.out
            tail = []
        } else {
            head = start
            tail = bits.out
        }
    }

    /// Copies bytes `range` of the stream into `buffer`.
    func copy(_ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) {
        let patternEnd = head.count + pattern.count * repeats
        for (index, position) in range.enumerated() {
            buffer[index] =
                position < head.count
                ? head[position]
                : position < patternEnd
                    ? pattern[(position - head.count) % pattern.count] : tail[position - patternEnd]
        }
    }
}

extension Gzip {
    /// Deflate's bit order: values least significant bit first, Huffman codes most
    /// significant bit first (so they are written reversed).
    struct BitWriter {
        var out: [UInt8] = []
        private var buffer: UInt64 = 0
        private var used = 0

        mutating func write(_ value: UInt32, count: Int) {
            buffer |= UInt64(value) << UInt64(used)
            used += count
            while used >= 8 {
                out.append(UInt8(truncatingIfNeeded: buffer))
                buffer >>= 8
                used -= 8
            }
        }

        /// A literal byte in the fixed code: 0-143 in 8 bits from 0x30, 144-255 in
        /// 9 bits from 0x190.
        mutating func literal(_ byte: UInt8) {
            if byte < 144 {
                write(Gzip.reversed(0x30 + UInt32(byte), count: 8), count: 8)
            } else {
                write(Gzip.reversed(0x190 + UInt32(byte) - 144, count: 9), count: 9)
            }
        }

        /// `count` back-references of 258 bytes at distance 1: code 285, then
        /// distance code 0.
        mutating func reference(count: Int) {
            for _ in 0..<count {
                write(Gzip.reversed(0xC5, count: 8), count: 8)
                write(0, count: 5)
            }
        }

        mutating func flush() {
            if used > 0 { out.append(UInt8(truncatingIfNeeded: buffer)) }
            buffer = 0
            used = 0
        }
    }

    static func reversed(_ code: UInt32, count: Int) -> UInt32 {
        var result: UInt32 = 0
        for bit in 0..<count where code & (1 << UInt32(bit)) != 0 { result |= 1 << UInt32(count - 1 - bit) }
        return result
    }
}
