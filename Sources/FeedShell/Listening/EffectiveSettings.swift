import HTTPSupport
import Library

/// A setting as it is in effect, and what put it there: `set`, a flag, an
/// environment variable, or the default.
struct EffectiveSetting: Sendable, Equatable {
    let setting: Setting
    /// The value in effect, nil for the default; `(hidden)` for a secret that is set.
    let value: String?
    /// `default`, `set`, `FEEDSH_PLAYER`, `--max-concurrent`, …
    let source: String
}

extension Session {
    /// Every setting as it is in effect: what flags and the environment give
    /// overrides what `set` stored, and a secret's value is never shown.
    func effectiveSettings() async -> [EffectiveSetting] {
        let stored = await settings().values
        let configuration = configuration
        return Setting.allCases.map { setting in
            var value = stored[setting]
            var source = value == nil ? "default" : "set"
            let given: (String, String)? =
                switch setting {
                case .player: configuration.player.map { ($0, "FEEDSH_PLAYER") }
                case .maxConcurrent:
                    configuration.maxConcurrentGiven ? (String(configuration.maxConcurrent), "--max-concurrent") : nil
                case .maxSize: configuration.maxFileSize.map { (ByteSize.format($0), "--max-filesize") }
                case .pager: configuration.pager == nil ? ("none", "--no-pager") : nil
                case .podcastIndexKey: configuration.podcastIndexKey.map { ($0, "FEEDSH_PODCASTINDEX_KEY") }
                case .podcastIndexSecret: configuration.podcastIndexSecret.map { ($0, "FEEDSH_PODCASTINDEX_SECRET") }
                case .rateLimit: configuration.rateLimit.map { (ByteSize.format($0), "--limit-rate") }
                default: nil
                }
            if let given { (value, source) = given }
            if setting.isSecret, value != nil { value = "(hidden)" }
            return EffectiveSetting(setting: setting, value: value, source: source)
        }
    }
}
