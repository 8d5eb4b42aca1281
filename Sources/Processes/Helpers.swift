import Foundation

/// feedsh's helper programs (`feedsh-mcp`, `feedsh-urlsession`): installed beside
/// it, each keeps a library that only one feature needs out of every start.
public enum Helpers {
    /// The path of `name` in the folder of the running executable (feedsh's, or a
    /// test bundle's, which SwiftPM builds beside them).
    public static func path(_ name: String) -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = buffer.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        }
        let executable = length > 0 ? String(decoding: buffer[..<length], as: UTF8.self) : CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(name).path
    }
}
