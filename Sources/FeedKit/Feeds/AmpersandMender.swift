/// Mends the ampersands of a feed as the world writes it, on the bytes before
/// libxml2 sees them, which stops at the first of these:
///
/// - an HTML entity XML does not know (`&nbsp;`, `&mdash;`, `&eacute;`) becomes
///   its numeric reference (`&#160;`);
/// - a bare `&` (`?a=1&b=2` in an enclosure URL, `Q&A` in a title) and an unknown
///   name (`&foo;`) become `&amp;`, so they read as written; after a
///   `<!DOCTYPE`, an unknown name is left for libxml2 (the document may declare
///   it, and libxml2 refuses an entity bomb).
///
/// XML's own references (`&amp;`, `&#38;`, `&#x26;`) pass as they are, and so
/// does everything inside CDATA sections and comments, where `&` is text.
/// Bytes arrive in chunks; a reference or a marker cut by a chunk's end waits
/// for the next (``finish(into:)`` lets it go). ASCII-compatible encodings only
/// (UTF-8, ISO-8859-1, Windows-1252): the channel does not call it for UTF-16.
struct AmpersandMender {
    private enum Mode { case text, cdata, comment }
    private var mode = Mode.text
    /// A document type came first: names it may declare (`&lol1;` of an entity
    /// bomb too) are left for libxml2 to expand or refuse.
    private var sawDoctype = false
    /// The start of a chunk's bytes not yet decided (an `&…`, a `<!…`, a `]]` or `--`).
    private var pending: [UInt8] = []

    /// The longest reference looked at: `&` and a name or number and `;`.
    static let longest = 32

    private static let cdataOpen = Array("<![CDATA[".utf8)
    private static let commentOpen = Array("<!--".utf8)
    private static let doctype = Array("<!DOCTYPE".utf8)
    private static let cdataClose = Array("]]>".utf8)
    private static let commentClose = Array("-->".utf8)
    private static let ampersand = UInt8(ascii: "&")
    private static let less = UInt8(ascii: "<")
    private static let escapedAmpersand = Array("&amp;".utf8)

    /// Appends `bytes`, mended, to `out`.
    mutating func mend(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        let input: [UInt8] = pending.isEmpty ? Array(bytes) : pending + bytes
        pending.removeAll()
        var index = 0
        let count = input.count
        while index < count {
            switch mode {
            case .cdata, .comment:
                let close = mode == .cdata ? Self.cdataClose : Self.commentClose
                guard let end = Self.find(close, in: input, from: index) else {
                    // Keep what could be the start of the closing marker.
                    let keep = min(close.count - 1, count - index)
                    out += input[index..<(count - keep)]
                    pending = Array(input[(count - keep)...])
                    return
                }
                out += input[index..<(end + close.count)]
                index = end + close.count
                mode = .text
            case .text:
                guard let next = input[index...].firstIndex(where: { $0 == Self.ampersand || $0 == Self.less }) else {
                    out += input[index...]
                    return
                }
                out += input[index..<next]
                index = next
                if input[index] == Self.less {
                    var matched = false
                    for (marker, entered) in [
                        (Self.cdataOpen, Mode.cdata), (Self.commentOpen, Mode.comment), (Self.doctype, Mode.text),
                    ] {
                        let available = min(marker.count, count - index)
                        guard input[index..<(index + available)].elementsEqual(marker[..<available]) else { continue }
                        if available < marker.count {
                            pending = Array(input[index...])
                            return
                        }
                        out += marker
                        index += marker.count
                        mode = entered
                        if marker == Self.doctype { sawDoctype = true }
                        matched = true
                        break
                    }
                    if !matched {
                        out.append(Self.less)
                        index += 1
                    }
                    continue
                }
                switch Self.reference(in: input, at: index, declared: sawDoctype) {
                case .incomplete:
                    pending = Array(input[index...])
                    return
                case .keep(let length):
                    out += input[index..<(index + length)]
                    index += length
                case .replace(let length, let replacement):
                    out += replacement
                    index += length
                case .bare:
                    out += Self.escapedAmpersand
                    index += 1
                }
            }
        }
    }

    /// Lets go of what waited for more bytes: the document ended.
    mutating func finish(into out: inout [UInt8]) {
        guard !pending.isEmpty else { return }
        let rest = pending
        pending.removeAll()
        if mode == .text, rest.first == Self.ampersand {
            out += Self.escapedAmpersand
            mend(rest.dropFirst(), into: &out)
            if !pending.isEmpty { finish(into: &out) }
        } else {
            out += rest
        }
    }

    private enum Reference {
        /// The chunk ends before it can be told.
        case incomplete
        /// A reference XML reads: this many bytes.
        case keep(Int)
        /// An HTML one: this many bytes, and XML's numeric reference for them.
        case replace(Int, [UInt8])
        /// No reference: the `&` alone.
        case bare
    }

    /// What the `&` at `start` begins; with `declared`, a name HTML does not
    /// know may be one the document type declares, and is kept.
    private static func reference(in bytes: [UInt8], at start: Int, declared: Bool) -> Reference {
        var index = start + 1
        let numeric = index < bytes.count && bytes[index] == UInt8(ascii: "#")
        if numeric { index += 1 }
        let nameStart = index
        while index < bytes.count, index - start < longest {
            let byte = bytes[index]
            if byte == UInt8(ascii: ";") {
                guard index > nameStart else { return .bare }
                let name = bytes[nameStart..<index]
                if numeric {
                    guard let value = number(name) else { return .bare }
                    // A reference to a character XML forbids (`&#8;`) stops
                    // libxml2 as the raw byte would: it goes, as those do.
                    return allowedInXML(value) ? .keep(index + 1 - start) : .replace(index + 1 - start, [])
                }
                guard let first = name.first, isNameStart(first) else { return .bare }
                let text = Substring(decoding: name, as: UTF8.self)
                if ["amp", "lt", "gt", "quot", "apos"].contains(text) { return .keep(index + 1 - start) }
                guard let code = HTMLEntities.codePoints[text] else {
                    return declared ? .keep(index + 1 - start) : .bare
                }
                return .replace(index + 1 - start, Array("&#\(code);".utf8))
            }
            guard isNameByte(byte) else { return .bare }
            index += 1
        }
        return index >= bytes.count && index - start < longest ? .incomplete : .bare
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    /// The value of a numeric reference's `123` or `x1F`; nil when it is not one.
    private static func number(_ name: ArraySlice<UInt8>) -> UInt32? {
        let text = String(decoding: name, as: UTF8.self)
        if let first = name.first, first | 0x20 == UInt8(ascii: "x") {
            return text.count > 1 && text.count <= 9 ? UInt32(text.dropFirst(), radix: 16) : nil
        }
        return text.count <= 10 ? UInt32(text) : nil
    }

    /// XML 1.0's `Char`: tab, line feed, carriage return and the rest from
    /// U+0020, without surrogates and U+FFFE, U+FFFF.
    private static func allowedInXML(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = needle.first else { return nil }
        var index = from
        while index + needle.count <= bytes.count {
            guard let candidate = bytes[index...].firstIndex(of: first) else { return nil }
            guard candidate + needle.count <= bytes.count else { return nil }
            if bytes[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            index = candidate + 1
        }
        return nil
    }
}
