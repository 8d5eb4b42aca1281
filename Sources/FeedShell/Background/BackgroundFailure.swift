/// The background feedsh could not be started or reached.
struct BackgroundFailure: CommandFailure {
    let message: String

    var failureCode: String { "background" }
    var description: String { message }
}

extension ShellError {
    static func background(_ message: String) -> ShellError { .failure(BackgroundFailure(message: message)) }
}
