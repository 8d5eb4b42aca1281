/// Mends a feed's bytes as the world writes them, on their way to libxml2,
/// which stops at the first of these:
///
/// - the C0 controls XML 1.0 forbids (escape sequences, bells) are dropped, and
///   so are references to them (`&#8;`);
/// - an HTML entity XML does not know (`&nbsp;`, `&mdash;`, `&eacute;`) becomes
///   its numeric reference (`&#160;`);
/// - a bare `&` (`?a=1&b=2` in an enclosure URL, `Q&A` in a title) and an
///   unknown name (`&foo;`) become `&amp;`, so they read as written; after a
///   `<!DOCTYPE`, an unknown name is left for libxml2 (the document may declare
///   it, and libxml2 refuses an entity bomb).
///
/// XML's own references (`&amp;`, `&#38;`) pass as they are, and so does every
/// `&` inside CDATA sections and comments, where it is text. Bytes arrive in
/// chunks: what a chunk's end cuts (an `&…`, a `<!…`, a `]]` or `--`) waits for
/// the next, and ``finish(into:)`` lets it go. One pass a byte, copying runs
/// of plain bytes whole: every feed goes through here. ASCII-compatible
/// encodings only (UTF-8, ISO-8859-1, Windows-1252), not UTF-16.
struct XMLMender {
    private enum Mode { case text, cdata, comment }
    private var mode = Mode.text
    /// A document type came first: names it may declare are left alone.
    private var sawDoctype = false
    /// The start of a chunk not yet decided, put before the next one.
    private var pending: [UInt8] = []

    /// The longest reference looked at: `&`, a name or number, `;`.
    static let longest = 32

    private static let ampersand = UInt8(ascii: "&")
    private static let less = UInt8(ascii: "<")
    private static let cdataOpen = Array("<![CDATA[".utf8)
    private static let commentOpen = Array("<!--".utf8)
    private static let doctype = Array("<!DOCTYPE".utf8)
    private static let escapedAmpersand = Array("&amp;".utf8)

    /// Appends `bytes`, mended, to `out`.
    mutating func mend(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if pending.isEmpty {
            process(bytes.bindMemory(to: UInt8.self), into: &out)
        } else {
            let joined = pending + bytes
            pending.removeAll()
            joined.withUnsafeBufferPointer { process($0, into: &out) }
        }
    }

    /// The same for bytes in any collection (tests, a whole document).
    mutating func mend(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        Array(bytes).withUnsafeBytes { mend($0, into: &out) }
    }

    /// Lets go of what waited for more bytes: the document ended.
    mutating func finish(into out: inout [UInt8]) {
        guard !pending.isEmpty else { return }
        let rest = pending
        pending.removeAll()
        guard mode == .text, rest.first == Self.ampersand else {
            out += rest
            return
        }
        // An `&` the document ended in the middle of: no reference.
        out += Self.escapedAmpersand
        mend(rest.dropFirst(), into: &out)
        finish(into: &out)
    }

    private mutating func process(_ input: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let count = input.count
        var run = 0
        var index = 0
        func flush(to end: Int) {
            if end > run { out.append(contentsOf: UnsafeBufferPointer(rebasing: input[run..<end])) }
        }
        func wait(from start: Int) {
            flush(to: start)
            pending = Array(input[start...])
            run = count
        }
        while index < count {
            let byte = input[index]
            // Most bytes: letters, digits, spaces, punctuation.
            if byte > Self.less || (byte >= 0x20 && byte != Self.ampersand && byte != Self.less) {
                if mode != .text, byte == (mode == .cdata ? UInt8(ascii: "]") : UInt8(ascii: "-")) {
                    guard index + 2 < count else { return wait(from: index) }
                    let closed =
                        input[index + 1] == byte && input[index + 2] == UInt8(ascii: ">")
                    if closed {
                        mode = .text
                        index += 3
                        continue
                    }
                }
                index += 1
                continue
            }
            if byte < 0x20 {
                if byte == 0x09 || byte == 0x0A || byte == 0x0D {
                    index += 1
                    continue
                }
                // A control XML forbids: dropped.
                flush(to: index)
                index += 1
                run = index
                continue
            }
            if mode != .text {
                index += 1
                continue
            }
            if byte == Self.less {
                guard index + 1 < count else { return wait(from: index) }
                guard input[index + 1] == UInt8(ascii: "!") else {
                    index += 1
                    continue
                }
                var matched = false
                for (marker, entered) in [
                    (Self.cdataOpen, Mode.cdata), (Self.commentOpen, Mode.comment), (Self.doctype, Mode.text),
                ] {
                    let available = min(marker.count, count - index)
                    guard input[index..<(index + available)].elementsEqual(marker[..<available]) else { continue }
                    if available < marker.count { return wait(from: index) }
                    index += marker.count
                    mode = entered
                    if entered == .text { sawDoctype = true }
                    matched = true
                    break
                }
                if !matched { index += 1 }
                continue
            }
            // An ampersand.
            switch Self.reference(in: input, at: index, declared: sawDoctype) {
            case .incomplete:
                return wait(from: index)
            case .keep(let length):
                index += length
            case .replace(let length, let replacement):
                flush(to: index)
                out += replacement
                index += length
                run = index
            case .bare:
                flush(to: index)
                out += Self.escapedAmpersand
                index += 1
                run = index
            }
        }
        flush(to: count)
    }

    private enum Reference {
        /// The chunk ends before it can be told.
        case incomplete
        /// A reference XML reads: this many bytes.
        case keep(Int)
        /// This many bytes, and what XML is to read instead.
        case replace(Int, [UInt8])
        /// No reference: the `&` alone.
        case bare
    }

    /// What the `&` at `start` begins; with `declared`, a name HTML does not
    /// know may be one the document type declares, and is kept.
    private static func reference(in bytes: UnsafeBufferPointer<UInt8>, at start: Int, declared: Bool) -> Reference {
        var index = start + 1
        let numeric = index < bytes.count && bytes[index] == UInt8(ascii: "#")
        if numeric { index += 1 }
        let nameStart = index
        while index < bytes.count, index - start < longest {
            let byte = bytes[index]
            if byte == UInt8(ascii: ";") {
                guard index > nameStart else { return .bare }
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[nameStart..<index]), as: UTF8.self)
                let length = index + 1 - start
                if numeric {
                    guard let value = number(name) else { return .bare }
                    // A reference to a character XML forbids stops libxml2 as
                    // the raw byte would: it goes, as those do.
                    return allowedInXML(value) ? .keep(length) : .replace(length, [])
                }
                guard let first = name.utf8.first, isNameStart(first) else { return .bare }
                if ["amp", "lt", "gt", "quot", "apos"].contains(name) { return .keep(length) }
                guard let code = HTMLEntities.codePoints[Substring(name)] else {
                    return declared ? .keep(length) : .bare
                }
                return .replace(length, Array("&#\(code);".utf8))
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
    private static func number(_ name: String) -> UInt32? {
        if name.first == "x" || name.first == "X" {
            return name.count > 1 && name.count <= 9 ? UInt32(name.dropFirst(), radix: 16) : nil
        }
        return name.count <= 10 ? UInt32(name) : nil
    }

    /// XML 1.0's `Char`: tab, line feed, carriage return and the rest from
    /// U+0020, without surrogates and U+FFFE, U+FFFF.
    private static func allowedInXML(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
