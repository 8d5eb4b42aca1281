import FeedServices
import Library

extension LibraryService {
    /// The library, opened (and migrated) the first time a command needs it.
    package func make() throws(ShellError) -> Library {
        do throws(LibraryError) {
            return try open()
        } catch {
            throw .library(error)
        }
    }

    /// The library when its file exists (opened if needed, failing as ``make()``
    /// does); nil, without making one, when it does not: for commands that only
    /// read it (`find`, `queue`).
    package func ifMade() throws(ShellError) -> Library? {
        guard exists else { return nil }
        return try make()
    }
}
