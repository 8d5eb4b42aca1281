import FixtureData
import Foundation
import Testing

@testable import FeedKit

/// The bytes of a file in the project's `Fixtures/`.
func fixture(_ name: String) throws -> Data {
    Data(try #require(FixtureFiles.all[name], "no fixture \(name)"))
}

/// `../shared/corpus` beside the repository, when it is there (it is in CI).
let corpusDirectory: URL? = {
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let corpus = root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    return FileManager.default.fileExists(atPath: corpus.path) ? corpus : nil
}()

/// Whether `../shared/corpus/{folder}` is there: the corpus tests run only then,
/// and say they were skipped otherwise (`.enabled(if:)`).
func corpusHas(_ path: String) -> Bool {
    corpusDirectory.map { FileManager.default.fileExists(atPath: $0.appendingPathComponent(path).path) } ?? false
}

func corpusFiles(_ folder: String, prefix: String) -> [URL] {
    guard let dir = corpusDirectory?.appendingPathComponent(folder),
        let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path)
    else { return [] }
    return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted().map {
        dir.appendingPathComponent($0)
    }
}
