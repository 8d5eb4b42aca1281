/// An optional member written as `null` when absent, where Swift's synthesized
/// `Encodable` would leave its key out: the vocabulary's values keep every key
/// in every answer, so a script reads `.author` and gets `null`, not nothing.
///
/// ```swift
/// struct Song: Encodable { var title: String; @Nullable var album: String? }
/// // {"title": "Intro", "album": null}
/// ```
@propertyWrapper
package struct Nullable<Wrapped: Sendable>: Sendable {
    package var wrappedValue: Wrapped?

    package init(wrappedValue: Wrapped?) { self.wrappedValue = wrappedValue }
}

extension Nullable: Equatable where Wrapped: Equatable {}

extension Nullable: Encodable where Wrapped: Encodable {
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension Nullable: Decodable where Wrapped: Decodable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Wrapped.self)
    }
}

extension KeyedDecodingContainer {
    /// A member that may be absent as well as `null`.
    package func decode<Wrapped: Decodable>(_ type: Nullable<Wrapped>.Type, forKey key: Key) throws -> Nullable<Wrapped>
    {
        Nullable(wrappedValue: try decodeIfPresent(Wrapped.self, forKey: key))
    }
}

extension JSONValue {
    /// `value` as every front end encodes it (``JSONValueEncoder``): keys in the
    /// order written, dates as ISO 8601 text.
    package init(encoding value: some Encodable) {
        self = (try? JSONValueEncoder().encode(value)) ?? .null
    }
}
