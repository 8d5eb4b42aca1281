/// Text laid out in a terminal's columns: how wide it is (wide East Asian and emoji
/// characters count two, combining ones nothing), cut, padded and wrapped to a width.
/// Pure functions of the text, with no terminal in sight, so that help, tables and
/// the line editor measure alike and tests can lay out at any width.
public enum TextLayout {
    /// Columns `text` takes in a terminal: wide (East Asian, emoji) characters count
    /// two, combining and zero-width ones nothing.
    ///
    /// Text all ASCII, as most titles and every table's numbers are, is measured by
    /// its bytes: asking Unicode's properties of each character made a table of
    /// 10,000 episodes take a third of `new`'s time.
    public static func width(_ text: String) -> Int {
        // A native string's bytes read in place: through the UTF-8 view's iterator
        // each byte cost some forty instructions (a tenth of `new` on 10,000).
        if let columns = text.utf8.withContiguousStorageIfAvailable(asciiWidth) ?? asciiWidth(text.utf8) {
            return columns
        }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// Columns ASCII text takes (a control character none), or nil when it is not
    /// all ASCII.
    private static func asciiWidth(_ bytes: some Collection<UInt8>) -> Int? {
        var columns = 0
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            if byte >= 0x20 && byte != 0x7F { columns += 1 }
        }
        return columns
    }

    /// Columns one character takes.
    public static func width(of character: Character) -> Int {
        if character.utf8.count == 1, let byte = character.utf8.first {
            return byte >= 0x20 && byte != 0x7F ? 1 : 0
        }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.value == 0xFE0F }) || first.properties.isEmojiPresentation {
            return 2
        }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return isWide(first.value) ? 2 : 1
    }

    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `columns` columns, ending in `…` when cut.
    public static func truncate(_ text: String, toWidth columns: Int) -> String {
        guard width(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let w = width(of: character)
            if used + w > columns - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` cut to at most `columns` columns at its start, beginning with `…` when
    /// cut: for paths, whose end says the most.
    public static func truncate(keepingEnd text: String, toWidth columns: Int) -> String {
        guard width(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var kept: [Character] = []
        var used = 0
        for character in text.reversed() {
            let w = width(of: character)
            if used + w > columns - 1 { break }
            kept.append(character)
            used += w
        }
        return "…" + String(kept.reversed())
    }

    /// `text` padded with spaces to `columns` columns.
    public static func pad(_ text: String, toWidth columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - width(text)))
    }

    /// Rows `line` takes on a terminal `columns` wide (at least one).
    public static func rows(_ line: String, columns: Int) -> Int {
        guard columns > 0 else { return 1 }
        return max(1, (width(line) + columns - 1) / columns)
    }

    /// `text` wrapped to `columns` at word boundaries; a word longer than a line is
    /// cut where it must be. Line breaks are kept. A continuation keeps the
    /// indentation of its line, and after a list marker (`- `, `* `, `• `, `1. `)
    /// lines up with the item's text.
    public static func wrap(_ text: String, toWidth columns: Int) -> String {
        guard columns > 0 else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map {
            wrapLine(String($0), columns: columns).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    private static func wrapLine(_ line: String, columns: Int) -> [String] {
        guard width(line) > columns else { return [line] }
        let indentation = String(line.prefix { $0 == " " })
        var hanging = indentation
        let rest = line.dropFirst(indentation.count)
        if let marker = ["- ", "* ", "• "].first(where: rest.hasPrefix) {
            hanging += String(repeating: " ", count: marker.count)
        } else if let dot = rest.firstIndex(of: "."), rest[..<dot].allSatisfy(\.isNumber), !rest[..<dot].isEmpty,
            rest[dot...].hasPrefix(". ")
        {
            hanging += String(repeating: " ", count: rest.distance(from: rest.startIndex, to: dot) + 2)
        }
        if width(hanging) >= columns / 2 { hanging = "" }
        var lines: [String] = []
        var current = indentation
        var currentWidth = width(indentation)
        var lineHasWord = false
        for word in rest.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            var wordWidth = width(word)
            let space = lineHasWord ? 1 : 0
            if currentWidth + space + wordWidth <= columns {
                current += (lineHasWord ? " " : "") + word
                currentWidth += space + wordWidth
                lineHasWord = true
                continue
            }
            if lineHasWord {
                lines.append(current)
                current = hanging
                currentWidth = width(hanging)
                lineHasWord = false
            }
            // A word wider than the room left on an empty line is cut: after
            // its last `_`, `-`, `/` or `.` that fits in the line's second half
            // (FEEDSH_PODCASTINDEX_ / SECRET), else where the room ends.
            while currentWidth + wordWidth > columns {
                var piece = ""
                var pieceWidth = 0
                var remainder = Substring(word)
                while let character = remainder.first, currentWidth + pieceWidth + width(of: character) <= columns {
                    piece.append(character)
                    pieceWidth += width(of: character)
                    remainder = remainder.dropFirst()
                }
                if let joint = piece.dropLast().lastIndex(where: { "_-/.".contains($0) }),
                    piece.distance(from: piece.startIndex, to: joint) >= (columns - currentWidth) / 2
                {
                    let after = piece.index(after: joint)
                    remainder = piece[after...] + remainder
                    piece = String(piece[..<after])
                }
                if piece.isEmpty, let character = remainder.first {
                    piece.append(character)
                    remainder = remainder.dropFirst()
                }
                lines.append(current + piece)
                current = hanging
                currentWidth = width(hanging)
                word = String(remainder)
                wordWidth = width(word)
            }
            if !word.isEmpty {
                current += word
                currentWidth += wordWidth
                lineHasWord = true
            }
        }
        if lineHasWord || lines.isEmpty { lines.append(current) }
        return lines
    }
}
