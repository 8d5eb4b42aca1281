import FeedKit
import FeedServices
import Foundation
import Library

/// What keeps `search --index` from asking the Podcast Index.
struct PodcastIndexFailure: CommandFailure {
    /// Which of key and secret are missing.
    let missing: [String]

    var failureCode: String { "no-index-key" }

    var description: String {
        """
        search --index needs a Podcast Index API key and secret (\(missing.joined(separator: " and ")) not set): \
        get them free at https://api.podcastindex.org/signup, then set FEEDSH_PODCASTINDEX_KEY and \
        FEEDSH_PODCASTINDEX_SECRET, or 'set podcastindex-key KEY' and 'set podcastindex-secret SECRET'
        """
    }
}

extension SourcesService {
    /// The Podcast Index client, with the key and secret from the environment (or
    /// `--demo`), else from the settings.
    func podcastIndex() async throws(ShellError) -> PodcastIndexClient {
        let settings = await library.settingsInEffect()
        let key = settings.values[.podcastIndexKey]
        let secret = settings.values[.podcastIndexSecret]
        guard let key, let secret else {
            throw .failure(
                PodcastIndexFailure(
                    missing: [key == nil ? "key" : nil, secret == nil ? "secret" : nil].compactMap { $0 }
                )
            )
        }
        return PodcastIndexClient(
            baseURL: configuration.endpoints.podcastIndex,
            credentials: PodcastIndexCredentials(key: key, secret: secret),
            http: http
        )
    }
}
