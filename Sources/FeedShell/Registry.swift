import ShellKit

extension Registry where Command == FeedShell.Command {
    /// Every command feedsh has, in the order `help` lists them.
    public static var standard: CommandRegistry {
        CommandRegistry([
            .lookup, .search, .open, .episodes, .show, .get, .pause, .resume, .cancel, .downloads, .wait, .detach,
            .subscribe, .unsubscribe, .podcasts, .podcast, .update, .new, .mark, .importOPML, .exportOPML,
            .play, .sleep, .queue, .playlist, .playlists, .clip, .clips, .copy, .chapters, .transcript, .find,
            .bookmark,
            .bookmarks, .stats,
            .set, .delete,
            .sync,
            .posts, .post, .image, .artwork, .tracks, .preview, .met, .source, .history, .about, .help, .quit,
        ])
    }
}

/// The lists Tab completion offers, by ``ShellKit/CompletionKind`` domain.
enum CompletionDomain {
    /// Every episode of the loaded podcast.
    static let episodes = "episodes"
    /// The results of the last `search`.
    static let searchResults = "search-results"
    /// The songs of the last `tracks`.
    static let songs = "songs"
    /// The library's subscriptions, numbered as `podcasts` numbers them.
    static let subscriptions = "subscriptions"
    /// The smart playlists' names.
    static let playlists = "playlists"
    // The download commands use their own names as domains: the episodes each
    // offers are declared with it (``Command/offers``).
}
