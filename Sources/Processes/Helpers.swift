import Foundation

/// The programs feedsh runs of its own: itself, as the background feedsh and as
/// the urlsession engine's helper.
public enum Helpers {
    /// The running program as a path that stays valid when its file is replaced
    /// while it runs (`make install` over a running background feedsh): the kernel
    /// resolves it to the program this process was started from.
    public static let runningProgram = "/proc/self/exe"

    /// The path of `name` in the folder of the running executable (feedsh's, or a
    /// test bundle's, which SwiftPM builds beside them).
    public static func path(_ name: String) -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = buffer.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { readlink(runningProgram, $0.baseAddress!, $0.count - 1) }
        }
        let executable = length > 0 ? String(decoding: buffer[..<length], as: UTF8.self) : CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(name).path
    }
}
