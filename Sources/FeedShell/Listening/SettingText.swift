import Library

/// How `set` and its help speak of each setting: the words are the shell's, the
/// library keeps only names, values and their rules.
extension Setting {
    /// What `set NAME` takes, for synopses: `RATE`, `COMMAND...`.
    var placeholder: String {
        switch self {
        case .speed: "RATE"
        case .player, .pager: "COMMAND"
        case .maxConcurrent: "N"
        case .cleanup, .mpris: "on|off"
        case .maxSize: "SIZE"
        case .transcripts, .sync: "auto on|off"
        case .podcastIndexKey: "KEY"
        case .podcastIndexSecret: "SECRET"
        case .rateLimit: "RATE"
        case .skipSilence, .loudness: "on|off"
        case .volumeBoost: "DB"
        case .skipIntro, .skipOutro: "TIME"
        case .skipChapters: "WORDS"
        case .servePassword: "PASSWORD"
        }
    }

    /// One line for `set` and `help set`.
    var summary: String {
        switch self {
        case .speed: "playback speed, 0.25 to 4"
        case .player: "the player: mpv, or a command with {} for the file or URL (FEEDSH_PLAYER wins)"
        case .pager: "the pager for long results, or none ($PAGER when unset)"
        case .maxConcurrent: "downloads at once when --max-concurrent is not given, 1 to 64"
        case .cleanup: "delete played files beyond a podcast's keep after downloads and updates"
        case .maxSize: "the largest file a download may be (k, M, G: 500M, 4G) when --max-filesize is not given"
        case .transcripts: "auto on: update fetches new episodes' transcripts, so that find searches them"
        case .podcastIndexKey: "your Podcast Index API key, for search --index (FEEDSH_PODCASTINDEX_KEY wins)"
        case .podcastIndexSecret: "its secret, never shown (FEEDSH_PODCASTINDEX_SECRET wins)"
        case .rateLimit: "the most all downloads together may take a second (200k, 1.5M) when --limit-rate is not given"
        case .sync: "auto on: update and play sync afterwards, in the background, saying only what failed"
        case .skipSilence: "shorten pauses of a second or more while playing (positions stay the file's)"
        case .loudness: "play quiet and loud shows at one level"
        case .volumeBoost: "decibels added to the volume, 0 to 12"
        case .skipIntro: "a play from the start begins this far in (45s, 1m30s); best per podcast"
        case .skipOutro: "this long before the end counts as the end: played, and the queue goes on"
        case .skipChapters: "words (sponsor ad): chapters whose titles hold one are jumped over"
        case .servePassword: "the password 'feedsh serve' wants, never shown (FEEDSH_SERVE_PASSWORD wins)"
        case .mpris: "while play runs, media keys and playerctl reach it on the desktop's session bus (MPRIS)"
        }
    }

    /// The value when none is set, as `set` shows it.
    var defaultText: String {
        switch self {
        case .speed: "1"
        case .player: "mpv"
        case .pager: "$PAGER, else less -FRX"
        case .maxConcurrent: "3"
        case .cleanup, .mpris: "on"
        case .maxSize: "4G"
        case .transcripts, .sync: "auto off"
        case .podcastIndexKey, .podcastIndexSecret, .rateLimit, .skipChapters, .servePassword: "none"
        case .skipSilence, .loudness: "off"
        case .volumeBoost: "0"
        case .skipIntro, .skipOutro: "0s"
        }
    }
}
