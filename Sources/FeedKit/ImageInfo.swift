import Foundation

/// The format and pixel size of an image, read from the first bytes of its file.
public struct ImageInfo: Sendable, Equatable {
    public enum Format: String, Sendable {
        case png = "PNG"
        case jpeg = "JPEG"
        case gif = "GIF"
        case webp = "WebP"

        /// The format a `Content-Type` names, when it is one of these.
        public init?(contentType: String) {
            let type = contentType.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            switch type {
            case "image/png": self = .png
            case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpeg
            case "image/gif": self = .gif
            case "image/webp": self = .webp
            default: return nil
            }
        }
    }

    public let format: Format
    public let width: Int
    public let height: Int

    /// How many leading bytes ``init(header:)`` may need: JPEG puts its size after
    /// the metadata segments, which can be large.
    public static let headerLimit = 1 << 20

    /// Reads the signature and size of a PNG, JPEG, GIF or WebP; nil for anything
    /// else or a header cut short.
    public init?(header bytes: some RandomAccessCollection<UInt8>) {
        let b = Array(bytes.prefix(Self.headerLimit))
        func be16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func le16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func le24(_ i: Int) -> Int { le16(i) | Int(b[i + 2]) << 16 }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let expected = Array(text.utf8)
            return b.count >= offset + expected.count && Array(b[offset..<offset + expected.count]) == expected
        }

        if b.count >= 24, b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), starts("IHDR", at: 12) {
            self.init(format: .png, width: be32(16), height: be32(20))
        } else if b.count >= 10, starts("GIF87a") || starts("GIF89a") {
            self.init(format: .gif, width: le16(6), height: le16(8))
        } else if b.count >= 30, starts("RIFF"), starts("WEBP", at: 8) {
            if starts("VP8 ", at: 12), b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A {
                self.init(format: .webp, width: le16(26) & 0x3FFF, height: le16(28) & 0x3FFF)
            } else if starts("VP8L", at: 12), b[20] == 0x2F {
                let bits = le32(b, 21)
                self.init(format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int(bits >> 14 & 0x3FFF) + 1)
            } else if starts("VP8X", at: 12) {
                self.init(format: .webp, width: le24(24) + 1, height: le24(27) + 1)
            } else {
                return nil
            }
        } else if b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 {
            // Walk the segments to the first start-of-frame marker.
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { return nil }
                let marker = b[i + 1]
                if marker == 0xFF {
                    i += 1
                    continue
                }
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    self.init(format: .jpeg, width: be16(i + 7), height: be16(i + 5))
                    return
                }
                if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 {
                    i += 2
                    continue
                }
                i += 2 + be16(i + 2)
            }
            return nil
        } else {
            return nil
        }
    }

    public init(format: Format, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}

private func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
    UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
}
