/// Text written into XML: OPML and the feeds `feedsh serve` writes.
public enum XMLText {
    /// Text as XML character data or an attribute value: the five special
    /// characters escaped, and what XML 1.0 cannot hold (C0 controls but tab, line
    /// feed and carriage return; U+FFFE and U+FFFF) left out.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
