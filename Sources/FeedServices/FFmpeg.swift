import Foundation
import PlainText
import Processes
import Subprocess
import SystemPackage

/// FFmpeg as `clip` and `copy` run it: found on the PATH, run with its
/// standard error kept, its complaint said in one line.
enum FFmpeg {
    /// `ffmpeg`'s (or `ffprobe`'s) path; nil when it is not installed.
    static func find(_ program: String = "ffmpeg") -> String? {
        ForegroundProcess.find(program)
    }

    /// Runs `program`; nil when it succeeded, else what it said went wrong.
    static func run(_ program: String, _ arguments: [String]) async throws -> String? {
        let result = try await Subprocess.run(
            .path(FilePath(program)),
            arguments: Arguments(arguments),
            output: .discarded,
            error: .string(limit: 1 << 16)
        )
        return result.terminationStatus.isSuccess ? nil : result.standardError
    }

    /// The last line FFmpeg wrote (the one that says what failed), made safe.
    static func complaint(_ standardError: String) -> String {
        SafeText.line(standardError.split(separator: "\n").last.map(String.init) ?? "it failed")
    }
}
