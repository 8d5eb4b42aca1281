/// One line for a person, safe by construction: what is interpolated into it (a
/// title, a path, a word someone typed) passes through ``SafeText/line(_:)`` as it
/// goes in, while its literal text, written in our source, is kept as it is.
///
///     let line: SafeLine = "deleted \(number): \(title) (\(path))"
///
/// A command that says something in a line writes it like this and never calls
/// ``SafeText`` itself.
public struct SafeLine: ExpressibleByStringInterpolation, Sendable, Equatable, CustomStringConvertible {
    /// The line, ready to show.
    public let description: String

    public init(stringLiteral value: String) {
        description = value
    }

    public init(stringInterpolation: Interpolation) {
        description = stringInterpolation.text
    }

    /// Builds the line: literals as they are, every value made safe.
    public struct Interpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            text += SafeText.line(value.description)
        }

        /// Another safe line, as it is.
        public mutating func appendInterpolation(_ line: SafeLine) {
            text += line.description
        }
    }

    /// Lines joined by line breaks, each safe already.
    public static func lines(_ lines: [SafeLine]) -> String {
        lines.map(\.description).joined(separator: "\n")
    }
}
