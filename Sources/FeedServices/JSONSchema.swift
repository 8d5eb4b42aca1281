/// A value of the vocabulary that can show what it looks like: examples covering
/// its shapes (every case of an enum, an optional both present and absent), from
/// which its JSON Schema is derived. The examples are encoded as every front end
/// encodes the value, so the schema cannot drift from what `--json`, mcp and the
/// web page send.
package protocol DescribedValue: Encodable {
    /// Values showing every key it can have and every type each key can take.
    static var examples: [Self] { get }
}

/// A JSON Schema, the part of it feedsh's values need: built from types
/// (``of(_:)``) or with the typed builders below, never as a tree by hand.
package struct JSONSchema: Encodable, Sendable, Equatable {
    /// JSON's types, as JSON Schema names them.
    package enum Kind: String, Encodable, Sendable, Comparable {
        case null, boolean, integer, number, string, array, object

        package static func < (a: Kind, b: Kind) -> Bool { a.order < b.order }
        private var order: Int {
            switch self {
            case .object: 0
            case .array: 1
            case .string: 2
            case .integer: 3
            case .number: 4
            case .boolean: 5
            case .null: 6
            }
        }
    }

    /// One member of an object, in the order the value writes its keys.
    package struct Property: Sendable, Equatable {
        package var name: String
        package var schema: JSONSchema
    }

    /// The types a value may have: one, or several (`["string", "null"]`).
    package var types: [Kind]
    package var description: String?
    package var properties: [Property]?
    /// The keys every value has.
    package var required: [String]?
    /// Whether an object may have keys beyond `properties` (false for arguments).
    package var additionalProperties: Bool?
    /// The only values allowed.
    package var allowed: [String]?
    /// The schema of each element of an array (one element: a struct cannot hold itself).
    private var itemSchemas: [JSONSchema]?

    package var items: JSONSchema? { itemSchemas?.first }

    package init(
        _ types: [Kind],
        description: String? = nil,
        properties: [Property]? = nil,
        required: [String]? = nil,
        additionalProperties: Bool? = nil,
        allowed: [String]? = nil,
        items: JSONSchema? = nil
    ) {
        self.types = types
        self.description = description
        self.properties = properties
        self.required = required
        self.additionalProperties = additionalProperties
        self.allowed = allowed
        itemSchemas = items.map { [$0] }
    }

    /// A value of one type, described.
    package static func of(_ kind: Kind, _ description: String? = nil) -> JSONSchema {
        JSONSchema([kind], description: description)
    }

    /// One of several types (a time: seconds or `12:34`).
    package static func oneOf(_ kinds: [Kind], _ description: String? = nil) -> JSONSchema {
        JSONSchema(kinds, description: description)
    }

    /// Text that is one of `values`.
    package static func choice(_ values: [String], _ description: String? = nil) -> JSONSchema {
        JSONSchema([.string], description: description, allowed: values)
    }

    /// A tool's arguments: an object with exactly these properties, `required`
    /// naming the ones it needs.
    package static func arguments(
        _ properties: KeyValuePairs<String, JSONSchema> = [:],
        required: [String] = []
    ) -> JSONSchema {
        JSONSchema(
            [.object],
            properties: properties.map { Property(name: $0.key, schema: $0.value) },
            required: required,
            additionalProperties: false
        )
    }

    /// The schema of `type`, from its examples encoded as the front ends encode
    /// them: a key present in every example is required, a key's types are all
    /// those the examples give it.
    package static func of<Value: DescribedValue>(_ type: Value.Type) -> JSONSchema {
        let encoder = JSONValueEncoder()
        let trees = Value.examples.compactMap { try? encoder.encode($0) }
        return trees.map(Self.init(describing:)).reduce(nil) { merged, next in merged?.merged(with: next) ?? next }
            ?? JSONSchema([.object])
    }

    /// The schema one JSON value fits.
    package init(describing value: JSONValue) {
        switch value {
        case .null: self.init([.null])
        case .bool: self.init([.boolean])
        case .int: self.init([.integer])
        case .double: self.init([.number])
        case .string: self.init([.string])
        case .array(let elements):
            let item = elements.map(Self.init(describing:)).reduce(nil) { merged, next in
                merged?.merged(with: next) ?? next
            }
            self.init([.array], items: item)
        case .object(let members):
            self.init(
                [.object],
                properties: members.map { Property(name: $0.key, schema: JSONSchema(describing: $0.value)) },
                required: members.map(\.key)
            )
        }
    }

    /// A schema that both `self`'s values and `other`'s fit.
    package func merged(with other: JSONSchema) -> JSONSchema {
        var result = self
        result.types = Array(Set(types).union(other.types)).sorted()
        // An integer where another example has a fraction is a number.
        if result.types.contains(.number) { result.types.removeAll { $0 == .integer } }
        result.description = description ?? other.description
        switch (properties, other.properties) {
        case (let mine?, let theirs?):
            var merged = mine
            for property in theirs {
                if let index = merged.firstIndex(where: { $0.name == property.name }) {
                    merged[index].schema = merged[index].schema.merged(with: property.schema)
                } else {
                    merged.append(property)
                }
            }
            result.properties = merged
            result.required = (required ?? []).filter { (other.required ?? []).contains($0) }
        case (nil, let theirs?):
            result.properties = theirs
            result.required = other.required
        default: break
        }
        switch (items, other.items) {
        case (let mine?, let theirs?): result.itemSchemas = [mine.merged(with: theirs)]
        case (nil, let theirs?): result.itemSchemas = [theirs]
        default: break
        }
        return result
    }

    /// The keys of objects this schema describes, with the paths of nested
    /// objects' keys (`episodes[].status.state`), for documentation checks.
    package var keyPaths: [String] {
        var paths: [String] = []
        for property in properties ?? [] {
            paths.append(property.name)
            paths += property.schema.keyPaths.map { "\(property.name).\($0)" }
        }
        if let items { paths += items.keyPaths.map { "[].\($0)" } }
        return paths
    }

    private enum CodingKeys: String, CodingKey {
        case type, description, properties, required, additionalProperties, items
        case allowed = "enum"
    }

    private struct Name: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if types.count == 1 {
            try container.encode(types[0], forKey: .type)
        } else {
            try container.encode(types, forKey: .type)
        }
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(allowed, forKey: .allowed)
        if let properties {
            var members = container.nestedContainer(keyedBy: Name.self, forKey: .properties)
            for property in properties { try members.encode(property.schema, forKey: Name(property.name)) }
        }
        try container.encodeIfPresent(required, forKey: .required)
        try container.encodeIfPresent(additionalProperties, forKey: .additionalProperties)
        try container.encodeIfPresent(items, forKey: .items)
    }
}
