/// A file cleanup deleted: a played episode beyond its podcast's `keep`.
package struct CleanupDeletion: Sendable, Equatable {
    package let podcast: String
    package let episode: String
    package let path: String
    package let keep: Int

    package init(podcast: String, episode: String, path: String, keep: Int) {
        self.podcast = podcast
        self.episode = episode
        self.path = path
        self.keep = keep
    }
}
