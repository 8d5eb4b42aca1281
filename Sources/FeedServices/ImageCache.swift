import Downloads
import FeedKit
import Foundation

/// Where `image` keeps files: `{cache-dir}/images/{key}-{name}`, beside
/// `{that}.meta.json` with the validators that make the next fetch conditional.
///
/// The key is a hash of the URL, so two images with one file name do not meet; the
/// name keeps the cache readable to a person.
package struct ImageCache: Sendable {
    package let directory: URL

    /// What is remembered of a cached image.
    package struct Metadata: Codable, Equatable {
        package var url: String
        package var validators: Validators
        package var contentType: String?

        package init(url: String, validators: Validators, contentType: String?) {
            self.url = url
            self.validators = validators
            self.contentType = contentType
        }
    }

    package func file(for url: URL) -> DownloadLayout.File {
        let name = url.lastPathComponent.filter { $0.isLetter || $0.isNumber || ".-_".contains($0) }.prefix(64)
        let padded = fnv1a64Key(url.absoluteString)
        return DownloadLayout.File(
            final: directory.appendingPathComponent(name.isEmpty || name == "." ? padded : "\(padded)-\(name)")
        )
    }

    package func metadataURL(for file: DownloadLayout.File) -> URL {
        URL(fileURLWithPath: file.final.path + ".meta.json")
    }

    /// The metadata of a complete cached copy of `url`, if there is one. A link in
    /// the file's place is no copy (the download engine replaces it, never follows).
    package func cached(_ url: URL) -> Metadata? {
        let file = file(for: url)
        var info = stat()
        guard lstat(file.final.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            let data = try? Data(contentsOf: metadataURL(for: file)),
            let metadata = try? JSONDecoder().decode(Metadata.self, from: data),
            metadata.url == url.absoluteString
        else { return nil }
        return metadata
    }

    package func save(_ metadata: Metadata, for file: DownloadLayout.File) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(metadata).write(to: metadataURL(for: file), options: .atomic)
    }

    /// Removes a cached image and everything beside it.
    package func remove(_ file: DownloadLayout.File) {
        for url in [file.final, file.part, file.sidecar, metadataURL(for: file)] {
            unlink(url.path)
        }
    }
}
