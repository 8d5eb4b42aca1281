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

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
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

extension Gzip {
    /// A gzip bomb: `prefix`, then `padding` spaces, then `suffix`, in one deflate
    /// block of fixed Huffman codes where the spaces are back-references of 258
    /// bytes (13 bits each): a GiB of padding compresses to under 7 MB. The trailer's
    /// CRC is not computed (a client must stop long before it would check it); its
    /// length is the document's, modulo 2^32.
    static func bomb(prefix: [UInt8], padding: Int, suffix: [UInt8]) -> [UInt8] {
        var bits = BitWriter()
        bits.out = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
        bits.out.reserveCapacity(padding / 258 * 13 / 8 + prefix.count + suffix.count + 64)
        bits.write(1, count: 1)  // the last block
        bits.write(1, count: 2)  // fixed Huffman codes
        for byte in prefix { bits.literal(byte) }
        if padding > 0 {
            bits.literal(0x20)
            var left = padding - 1
            while left >= 258 {
                bits.write(reversed(0xC5, count: 8), count: 8)  // length 258: code 285
                bits.write(0, count: 5)  // distance 1: code 0
                left -= 258
            }
            for _ in 0..<left { bits.literal(0x20) }
        }
        for byte in suffix { bits.literal(byte) }
        bits.write(0, count: 7)  // end of block: code 256
        bits.flush()
        var out = bits.out
        out.append(contentsOf: littleEndian(UInt32(0)))
        out.append(contentsOf: littleEndian(UInt32(truncatingIfNeeded: prefix.count + padding + suffix.count)))
        return out
    }

    /// Deflate's bit order: values least significant bit first, Huffman codes most
    /// significant bit first (so they are written reversed).
    private struct BitWriter {
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

        mutating func flush() {
            if used > 0 { out.append(UInt8(truncatingIfNeeded: buffer)) }
            buffer = 0
            used = 0
        }
    }

    private static func reversed(_ code: UInt32, count: Int) -> UInt32 {
        var result: UInt32 = 0
        for bit in 0..<count where code & (1 << UInt32(bit)) != 0 { result |= 1 << UInt32(count - 1 - bit) }
        return result
    }
}
