import FeedServices
import Library

extension LibraryService {
    /// Changes a setting (nil: back to its default). What it changes in the
    /// downloads, ``DownloadsService/applySettings()`` applies.
    func set(_ setting: Setting, to value: String?) async throws(ShellError) {
        let library = try make()
        try await libraryCall { () async throws(LibraryError) in try await library.set(setting, to: value) }
        cachedSettings = nil
    }
}
