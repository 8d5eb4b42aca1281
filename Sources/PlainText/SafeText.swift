/// What text from the network must lose before it is stored or shown: escape
/// sequences (CSI, OSC, DCS and the rest, 7- and 8-bit), control characters and the
/// bidirectional overrides that can make text read differently from what it is.
/// Every printable character, including U+00A0 and curly quotes, is kept.
///
/// Apart from the terminal (the renderers show text through it, ``TextLayout`` lays it out) so
/// that the feed parser can clean what it reads without knowing of terminals.
public enum SafeText {
    /// One line: line breaks and tabs become spaces.
    public static func line(_ text: String) -> String {
        sanitize(text, keepNewlines: false)
    }

    /// A block of text: line breaks (`\n`, `\r\n`, `\r`, U+2028, U+2029) become `\n`,
    /// tabs become spaces.
    public static func block(_ text: String) -> String {
        sanitize(text, keepNewlines: true)
    }

    private static func sanitize(_ text: String, keepNewlines: Bool) -> String {
        if isClean(text, keepNewlines: keepNewlines) { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        let newline: Unicode.Scalar = keepNewlines ? "\n" : " "
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            let value = scalar.value
            i += 1
            switch value {
            case 0x1B:  // ESC
                i = skipEscape(scalars, from: i)
            case 0x9B:  // 8-bit CSI
                i = skipCSI(scalars, from: i)
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F:  // 8-bit DCS, SOS, OSC, PM, APC
                i = skipString(scalars, from: i)
            case 0x0A, 0x2028, 0x2029:
                out.append(newline)
            case 0x0D:
                if i < scalars.count, scalars[i].value == 0x0A { i += 1 }
                out.append(newline)
            case 0x09:
                out.append(" ")
            case 0x00..<0x20, 0x7F, 0x80..<0xA0:
                break
            case 0x202A...0x202E, 0x2066...0x2069:
                break
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `text` has nothing to remove or change, from its UTF-8 alone: no C0
    /// or C1 control (but `\n` in a block), no DEL, nothing in U+2028...U+202E or
    /// U+2066...U+2069. Most text is, and is returned as it is.
    private static func isClean(_ text: String, keepNewlines: Bool) -> Bool {
        // A native string's bytes read in place, not through the UTF-8 view's
        // iterator (some forty instructions a byte).
        text.utf8.withContiguousStorageIfAvailable { isClean(bytes: $0, keepNewlines: keepNewlines) }
            ?? isClean(bytes: text.utf8, keepNewlines: keepNewlines)
    }

    private static func isClean(bytes: some Collection<UInt8>, keepNewlines: Bool) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 {
                guard keepNewlines, byte == 0x0A else { return false }
            } else if byte == 0x7F {
                return false
            } else if previous == 0xC2, (0x80...0x9F).contains(byte) {
                return false  // C1 controls, U+0080...U+009F
            } else if beforePrevious == 0xE2, previous == 0x80, (0xA8...0xAE).contains(byte) {
                return false  // U+2028...U+202E
            } else if beforePrevious == 0xE2, previous == 0x81, (0xA6...0xA9).contains(byte) {
                return false  // U+2066...U+2069
            }
            beforePrevious = previous
            previous = byte
        }
        return true
    }

    /// After ESC: the rest of the sequence.
    private static func skipEscape(_ s: [Unicode.Scalar], from start: Int) -> Int {
        guard start < s.count else { return start }
        switch s[start] {
        case "[": return skipCSI(s, from: start + 1)
        case "]", "P", "X", "^", "_": return skipString(s, from: start + 1)
        default:
            // Intermediates (0x20-0x2F), then one final character.
            var i = start
            while i < s.count, (0x20...0x2F).contains(s[i].value) { i += 1 }
            return min(i + 1, s.count)
        }
    }

    /// Parameters and intermediates (0x20-0x3F), then a final byte (0x40-0x7E).
    private static func skipCSI(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < s.count, (0x20...0x3F).contains(s[i].value) { i += 1 }
        if i < s.count, (0x40...0x7E).contains(s[i].value) { i += 1 }
        return i
    }

    /// A control string ended by BEL, ST (ESC \) or 8-bit ST.
    private static func skipString(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < s.count {
            switch s[i].value {
            case 0x07, 0x9C: return i + 1
            case 0x1B: return i + 1 < s.count && s[i + 1] == "\\" ? i + 2 : i + 1
            default: i += 1
            }
        }
        return i
    }
}
