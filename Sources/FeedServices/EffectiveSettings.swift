import HTTPSupport
import Library

/// A setting as it is in effect, and what put it there: `set`, a flag, an
/// environment variable, or the default.
package struct EffectiveSetting: Sendable, Equatable {
    package let setting: Setting
    /// The value in effect, nil for the default; `(hidden)` for a secret that is set.
    package let value: String?
    /// `default`, `set`, `FEEDSH_PLAYER`, `--max-concurrent`, …
    package let source: String
}

extension LibraryService {
    /// The library's settings; the defaults while there is no library file (reading
    /// settings never creates one).
    package func settings() async -> Settings {
        if let cached = cachedSettings { return cached }
        guard let library = existing(), let settings = try? await library.settings() else { return Settings() }
        cachedSettings = settings
        return settings
    }

    /// The settings in effect: what `set` stored, with what flags and the
    /// environment give in its place.
    package func settingsInEffect() async -> Settings {
        var values = await settings().values
        for (setting, given) in overrides { values[setting] = given.value }
        return Settings(values: values)
    }

    /// Every setting as it is in effect, for `set` to show: the value and where it
    /// came from, and a secret's value never.
    package func effectiveSettings() async -> [EffectiveSetting] {
        let stored = await settings().values
        return Setting.allCases.map { setting in
            var value = overrides[setting]?.value ?? stored[setting]
            let source = overrides[setting]?.source ?? (stored[setting] == nil ? "default" : "set")
            if setting.isSecret, value != nil { value = "(hidden)" }
            return EffectiveSetting(setting: setting, value: value, source: source)
        }
    }
}
