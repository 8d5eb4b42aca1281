import Foundation

/// Encodes any `Encodable` as a ``JSONValue``, keeping keys in the order they were
/// encoded (a synthesized conformance: the order of the stored properties), so
/// that a command's typed result reads as the hand-written objects do. Dates are
/// ISO 8601 text, URLs their absolute string, and a ``JSONValue`` inside a value is
/// taken as it is.
package struct JSONValueEncoder {
    package init() {}

    package func encode(_ value: some Encodable) throws -> JSONValue {
        let slot = Slot()
        try write(value, into: slot, at: [])
        return slot.value ?? .object([])
    }
}

/// What one encoder wrote: nothing yet, a finished value, or a container still
/// being filled (a reference, as nested containers outlive their calls).
private final class Slot {
    enum Content {
        case empty
        case value(JSONValue)
        case object(ObjectBox)
        case array(ArrayBox)
    }

    var content = Content.empty

    var value: JSONValue? {
        switch content {
        case .empty: nil
        case .value(let value): value
        case .object(let box): box.value
        case .array(let box): box.value
        }
    }
}

private final class ObjectBox {
    var members: [(key: String, slot: Slot)] = []

    var value: JSONValue {
        .object(members.compactMap { key, slot in slot.value.map { JSONValue.Member(key: key, value: $0) } })
    }

    /// The slot for `key`, replacing an earlier one of the same key in place.
    func slot(for key: String) -> Slot {
        let slot = Slot()
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].slot = slot
        } else {
            members.append((key, slot))
        }
        return slot
    }
}

private final class ArrayBox {
    var slots: [Slot] = []
    var value: JSONValue { .array(slots.map { $0.value ?? .null }) }

    func next() -> Slot {
        let slot = Slot()
        slots.append(slot)
        return slot
    }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String
    init(_ index: Int) {
        intValue = index
        stringValue = String(index)
    }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.init(intValue) }
}

private final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any] = [:]
    let storage: Slot

    init(codingPath: [any CodingKey], storage: Slot = Slot()) {
        self.codingPath = codingPath
        self.storage = storage
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: ObjectBox
        if case .object(let existing) = storage.content {
            box = existing
        } else {
            box = ObjectBox()
            storage.content = .object(box)
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: ArrayBox
        if case .array(let existing) = storage.content {
            box = existing
        } else {
            box = ArrayBox()
            storage.content = .array(box)
        }
        return UnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(slot: storage, codingPath: codingPath)
    }
}

/// Writes `value` into `slot`: leaves directly, anything else through an encoder
/// of its own over the same slot.
private func write(_ value: some Encodable, into slot: Slot, at path: [any CodingKey]) throws {
    switch value {
    case let json as JSONValue: slot.content = .value(json)
    case let date as Date: slot.content = .value(.date(date))
    case let url as URL: slot.content = .value(.string(url.absoluteString))
    default: try value.encode(to: ValueEncoder(codingPath: path, storage: slot))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ObjectBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { box.slot(for: key.stringValue).content = .value(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        box.slot(for: key.stringValue).content = .value(.bool(value))
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        box.slot(for: key.stringValue).content = .value(.string(value))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        box.slot(for: key.stringValue).content = .value(.double(value))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        box.slot(for: key.stringValue).content = .value(.int(Int64(value)))
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        box.slot(for: key.stringValue).content = .value(.int(Int64(value)))
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        box.slot(for: key.stringValue).content = .value(.int(Int64(value)))
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try write(value, into: box.slot(for: key.stringValue), at: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(codingPath: codingPath + [key], storage: box.slot(for: key.stringValue))
            .container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(codingPath: codingPath + [key], storage: box.slot(for: key.stringValue)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(codingPath: codingPath, storage: box.slot(for: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(codingPath: codingPath + [key], storage: box.slot(for: key.stringValue))
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: ArrayBox
    let codingPath: [any CodingKey]
    var count: Int { box.slots.count }

    mutating func encodeNil() throws { box.next().content = .value(.null) }
    mutating func encode(_ value: Bool) throws { box.next().content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { box.next().content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { box.next().content = .value(.double(value)) }
    mutating func encode(_ value: Int) throws { box.next().content = .value(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { box.next().content = .value(.int(Int64(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try write(value, into: box.next(), at: codingPath + [IndexKey(count)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        ValueEncoder(codingPath: codingPath + [IndexKey(count)], storage: box.next()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        ValueEncoder(codingPath: codingPath + [IndexKey(count)], storage: box.next()).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(codingPath: codingPath + [IndexKey(count)], storage: box.next())
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { slot.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { slot.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { slot.content = .value(.double(value)) }
    mutating func encode(_ value: Int) throws { slot.content = .value(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { slot.content = .value(.int(Int64(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try write(value, into: slot, at: codingPath) }
}

extension JSONValue: Encodable {
    /// Through ``JSONValueEncoder`` a value is taken as it is; through any other
    /// encoder (Foundation's, an MCP SDK's) it is written member by member.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in members { try container.encode(member.value, forKey: MemberKey(member.key)) }
        }
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ key: String) { stringValue = key }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
