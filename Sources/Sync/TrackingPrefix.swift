/// The URL an enclosure's redirects lead to, worked out without a request: the
/// measurement services podcasts put before their audio (Podtrac, Chartable,
/// Podsights, OP3, Podscribe, Spotify's and others) take a path that ends in the
/// real URL without its scheme, and redirect there. Two devices that read one
/// feed through different prefixes, or one through none, name the same episode
/// by different URLs; without the prefixes and the scheme they meet.
public enum TrackingPrefix {
    /// The path segments of each prefix after its host, by host; `*` is one
    /// segment (an ID), `x.*` one that starts with `x.`.
    static let patterns: [Substring: [[Substring]]] = Dictionary(
        grouping: [
            "dts.podtrac.com/redirect.*", "www.podtrac.com/pts/redirect.*", "podtrac.com/pts/redirect.*",
            "chtbl.com/track/*", "chrt.fm/track/*", "pdst.fm/e", "op3.dev/e", "pfx.vpixl.com/*",
            "verifi.podscribe.com/rss/p", "pscrb.fm/rss/p", "arttrk.com/p/*", "mgln.ai/e/*",
            "prfx.byspotify.com/e", "claritaspod.com/measure", "growx.podkite.com/*",
        ].map { $0.split(separator: "/") },
        by: { $0[0] }
    ).mapValues { prefixes in prefixes.map { Array($0.dropFirst()) } }

    /// `url` without its scheme and without any tracking prefixes, for comparing:
    /// `https://dts.podtrac.com/redirect.mp3/chtbl.com/track/A1/media.example/1.mp3`
    /// and `http://media.example/1.mp3` both give `media.example/1.mp3`.
    public static func key(_ url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        while let slash = rest.firstIndex(of: "/"),
            let candidates = patterns[Substring(rest[..<slash].lowercased())],
            let after = candidates.lazy.compactMap({
                strip($0, from: rest[rest.index(after: slash)...])
            }).first
        {
            rest = after
        }
        return String(rest)
    }

    /// What follows the path segments `pattern` in `text`, when `text` starts with
    /// them and something follows; `e,pg=…` counts as `e` (OP3 puts options there).
    private static func strip(_ pattern: [Substring], from text: Substring) -> Substring? {
        var rest = text
        for part in pattern {
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            let segment = rest[..<slash]
            let matches: Bool
            if part == "*" {
                matches = !segment.isEmpty
            } else if part.hasSuffix(".*") {
                matches = segment.hasPrefix(part.dropLast())
            } else {
                matches = segment == part || segment.hasPrefix(part + ",")
            }
            guard matches else { return nil }
            rest = rest[rest.index(after: slash)...]
        }
        return rest.isEmpty ? nil : rest
    }
}
