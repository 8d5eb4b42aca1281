import Foundation
import PlainText

/// Show notes as the web page may show them as markup: through an allow-list.
/// Paragraphs, line breaks, lists, emphasis, quotes, code and links (`http`,
/// `https`, `mailto` only, opening apart with no referrer) are kept, without any
/// attribute but a link's address; every other tag is dropped with its text
/// kept, and what a script, style, frame, object, SVG or template holds is
/// dropped whole. Text is escaped, so nothing from a feed becomes markup that
/// is not on the list. Notes with no tag at all are plain text: a blank line
/// makes a paragraph, a newline a break.
public enum ShowNotes {
    static let allowed: Set<String> = [
        "p", "br", "a", "ul", "ol", "li", "em", "strong", "b", "i", "blockquote", "code", "pre",
    ]
    /// Elements whose content is never text to show.
    static let dropped: Set<String> = [
        "script", "style", "iframe", "object", "embed", "template", "noscript", "svg", "math", "head", "title",
        "textarea", "select", "frame", "frameset", "applet",
    ]

    public static func html(_ notes: String) -> String {
        guard notes.utf8.contains(UInt8(ascii: "<")) else { return plain(notes) }
        var output = ""
        var open: [String] = []
        var text = Substring(notes)
        while let start = text.firstIndex(of: "<") {
            output += escape(HTMLEntities.decode(String(text[..<start])))
            text = text[start...]
            if text.hasPrefix("<!--") {
                guard let end = text.range(of: "-->") else { return close(output, open) }
                text = text[end.upperBound...]
                continue
            }
            guard let end = tagEnd(in: text) else {
                // A `<` that opens no tag is text.
                output += "&lt;"
                text = text.dropFirst()
                continue
            }
            let tag = Tag(text[text.index(after: text.startIndex)..<end])
            text = text[text.index(after: end)...]
            guard let tag else {
                continue
            }
            if !tag.closing, dropped.contains(tag.name) {
                // Skip to its end tag, whatever is inside.
                if let close = text.range(of: "</\(tag.name)", options: .caseInsensitive) {
                    text = text[close.upperBound...]
                    if let gt = text.firstIndex(of: ">") { text = text[text.index(after: gt)...] }
                } else {
                    text = text[text.endIndex...]
                }
                continue
            }
            guard allowed.contains(tag.name) else { continue }
            if tag.closing {
                guard let index = open.lastIndex(of: tag.name) else { continue }
                for name in open[index...].reversed() { output += "</\(name)>" }
                open.removeSubrange(index...)
            } else if tag.name == "br" {
                output += "<br>"
            } else if tag.name == "a" {
                guard let href = tag.attributes["href"].flatMap(safeLink) else {
                    // A link to nowhere safe is its text.
                    continue
                }
                output += "<a href=\"\(escape(href))\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">"
                open.append("a")
            } else {
                output += "<\(tag.name)>"
                open.append(tag.name)
            }
        }
        output += escape(HTMLEntities.decode(String(text)))
        return close(output, open)
    }

    /// What a library keeps of an item's notes as markup: the allow-listed HTML
    /// when it holds more than paragraphs and breaks (a link, a list, emphasis),
    /// else nil (the plain text says as much).
    public static func markup(_ notes: String) -> String? {
        // Byte scans: Foundation's substring search cost a third of an update's
        // time when every item of 150 feeds went through it.
        guard opensRichTag(notes) else { return nil }
        let html = html(notes)
        return isRich(html) ? html : nil
    }

    /// Whether `notes` opens a tag ``isRich(_:)`` looks for: only such notes
    /// can come out of ``html(_:)`` rich (it writes no tag the notes did not
    /// open), so the rest are not converted only to be dropped (a sixth of an
    /// update's time, for notes of paragraphs). A name with a byte past ASCII
    /// is taken as maybe one (lower-casing is Unicode's there).
    static func opensRichTag(_ notes: String) -> Bool {
        let bytes = Array(notes.utf8)
        var index = 0
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            var end = open + 1
            var name: [UInt8] = []
            while end < bytes.count {
                let byte = bytes[end]
                if byte >= 0x80 { return true }
                let lower = byte | 0x20
                let letter = lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
                guard letter || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else { break }
                name.append(letter ? lower : byte)
                end += 1
            }
            if Self.richNames.contains(name) { return true }
            index = open + 1
        }
        return false
    }

    /// The opening tags that make notes rich, as bytes.
    private static let richNames: Set<[UInt8]> = Set(
        ["a", "li", "em", "strong", "b", "i", "blockquote", "code", "pre"].map { Array($0.utf8) }
    )

    /// Whether `html` (this enum's own output: tags lower-case, as written here)
    /// holds a tag beyond paragraphs and breaks.
    static func isRich(_ html: String) -> Bool {
        let rich: [[UInt8]] = ["a ", "li>", "em>", "strong>", "b>", "i>", "blockquote>", "code>", "pre>"].map {
            Array($0.utf8)
        }
        let bytes = Array(html.utf8)
        for index in bytes.indices where bytes[index] == UInt8(ascii: "<") {
            let rest = bytes[(index + 1)...]
            if rich.contains(where: { rest.starts(with: $0) }) { return true }
        }
        return false
    }

    /// Notes with no markup: paragraphs at blank lines, breaks at newlines.
    public static func plain(_ notes: String) -> String {
        notes.replacingOccurrences(of: "\r\n", with: "\n")
            .components(separatedBy: "\n\n")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
            .map { "<p>" + escape(HTMLEntities.decode($0)).replacingOccurrences(of: "\n", with: "<br>") + "</p>" }
            .joined()
    }

    /// `http`, `https` and `mailto` addresses; nil for anything else
    /// (`javascript:`, `data:`, a relative path that would point into this server).
    static func safeLink(_ raw: String) -> String? {
        // Browsers ignore controls and spaces in a scheme: so does the check.
        let link = HTMLEntities.decode(raw).filter {
            !$0.isWhitespace && !$0.unicodeScalars.allSatisfy(\.properties.isDefaultIgnorableCodePoint)
        }
        .filter { $0.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } }
        guard let colon = link.firstIndex(of: ":") else { return nil }
        let scheme = link[..<colon].lowercased()
        guard ["http", "https", "mailto"].contains(scheme) else { return nil }
        guard scheme == "mailto" || link[colon...].hasPrefix("://") else { return nil }
        return link
    }

    static func escape(_ text: String) -> String {
        let safe = SafeText.block(text)
        // By UTF-8 bytes: the five are ASCII, never part of another character's
        // bytes, so nothing is cut (by Characters, a quote with a combining mark
        // after it was one Character, and went out unescaped). Every item's notes
        // come through here: by Characters it was a sixth of an update's time.
        func special(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
        }
        guard safe.utf8.contains(where: special) else { return safe }
        var output: [UInt8] = []
        output.reserveCapacity(safe.utf8.count + 64)
        for byte in safe.utf8 {
            switch byte {
            case UInt8(ascii: "&"): output += "&amp;".utf8
            case UInt8(ascii: "<"): output += "&lt;".utf8
            case UInt8(ascii: ">"): output += "&gt;".utf8
            case UInt8(ascii: "\""): output += "&quot;".utf8
            case UInt8(ascii: "'"): output += "&#39;".utf8
            default: output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func close(_ output: String, _ open: [String]) -> String {
        output + open.reversed().map { "</\($0)>" }.joined()
    }

    /// Where the tag that `text` starts with ends (its `>`, outside quotes).
    private static func tagEnd(in text: Substring) -> Substring.Index? {
        var quote: Character?
        var index = text.index(after: text.startIndex)
        guard index < text.endIndex, text[index].isLetter || text[index] == "/" || text[index] == "!" else {
            return nil
        }
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ">" {
                return index
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// A tag's name, whether it closes, and its attributes.
    struct Tag {
        let name: String
        let closing: Bool
        let attributes: [String: String]

        /// Nil for a declaration (`<!DOCTYPE…>`) or something with no name.
        init?(_ inside: Substring) {
            var rest = inside
            closing = rest.hasPrefix("/")
            if closing { rest = rest.dropFirst() }
            let name = rest.prefix { $0.isLetter || $0.isNumber }
            guard !name.isEmpty, name.first?.isLetter == true else { return nil }
            self.name = name.lowercased()
            rest = rest.dropFirst(name.count)
            var attributes: [String: String] = [:]
            while true {
                rest = rest.drop { $0.isWhitespace || $0 == "/" }
                let key = rest.prefix { !$0.isWhitespace && $0 != "=" && $0 != "/" }
                guard !key.isEmpty else { break }
                rest = rest.dropFirst(key.count).drop(while: \.isWhitespace)
                var value = ""
                if rest.first == "=" {
                    rest = rest.dropFirst().drop(while: \.isWhitespace)
                    if let quote = rest.first, quote == "\"" || quote == "'" {
                        rest = rest.dropFirst()
                        value = String(rest.prefix { $0 != quote })
                        rest = rest.dropFirst(value.count).dropFirst()
                    } else {
                        value = String(rest.prefix { !$0.isWhitespace })
                        rest = rest.dropFirst(value.count)
                    }
                }
                if attributes[key.lowercased()] == nil { attributes[key.lowercased()] = value }
            }
            self.attributes = attributes
        }
    }
}
