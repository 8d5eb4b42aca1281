import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Files that hold secrets (a sync login, an export with feed passwords): made
/// 0600 from the start in a new file beside the final one, written whole and
/// synced, then renamed over it. There is no moment where a password is readable
/// by others or half written.
public enum PrivateFile {
    /// Writes `data` to `path` so; an older file there of looser mode is replaced.
    public static func write(_ data: Data, to path: String) throws(POSIXError) {
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Self.error() }
        do throws(POSIXError) {
            // A leftover temporary file of looser mode (made by hand) is narrowed.
            guard fchmod(descriptor, 0o600) == 0 else { throw Self.error() }
            let failed = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return true }
                    offset += written
                }
                return false
            }
            guard !failed else { throw Self.error() }
            guard fsync(descriptor) == 0 else { throw Self.error() }
            close(descriptor)
            guard rename(temporary, path) == 0 else { throw Self.error() }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
    }

    private static func error() -> POSIXError { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
