/// HTML character references in API text (the Met writes `G. H. Aldrich &amp;
/// Company`): named ones that occur in practice, and numeric ones in decimal and hex.
public enum HTMLEntities {
    private static let named: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "ndash": "\u{2013}", "mdash": "\u{2014}", "lsquo": "\u{2018}", "rsquo": "\u{2019}",
        "ldquo": "\u{201C}", "rdquo": "\u{201D}", "hellip": "\u{2026}", "eacute": "é", "egrave": "è",
        "aacute": "á", "agrave": "à", "ouml": "ö", "uuml": "ü", "auml": "ä", "ccedil": "ç",
    ]

    /// `text` with each reference replaced by its character; unknown or malformed
    /// references stay as they are.
    public static func decode(_ text: String) -> String {
        // On bytes: `String.contains(String)` goes through Foundation on Linux.
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        var output = ""
        var rest = text[...]
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            guard let semicolon = rest[afterAmpersand...].prefix(12).firstIndex(of: ";"),
                let character = character(for: rest[afterAmpersand..<semicolon])
            else {
                output += "&"
                rest = rest[afterAmpersand...]
                continue
            }
            output += character
            rest = rest[rest.index(after: semicolon)...]
        }
        return output + rest
    }

    private static func character(for name: Substring) -> String? {
        if let value = named[name] { return value }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let code =
            digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        return code.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }
}
