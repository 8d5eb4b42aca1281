import FeedServices
import Foundation
import MCP
import Testing

@testable import Assistant

/// The answers' schemas are derived from the core's types; these tests check
/// the derivation, and that what each tool really sends fits what it declares.
@Suite("Output schemas from the vocabulary's types")
struct OutputSchemaTests {
    /// Why `value` does not fit `schema` (JSON Schema's `type`, `enum`,
    /// `properties`, `required` and `items`), at its path; empty when it fits.
    static func problems(_ value: Value, _ schema: Value, at path: String = "$") -> [String] {
        guard let rules = schema.objectValue else { return ["\(path): schema is not an object"] }
        let types = rules["type"].map { $0.arrayValue?.compactMap(\.stringValue) ?? [$0.stringValue ?? ""] } ?? []
        let kind: String =
            switch value {
            case .null: "null"
            case .bool: "boolean"
            case .int: "integer"
            case .double: "number"
            case .string: "string"
            case .array: "array"
            case .object: "object"
            case .data: "string"
            }
        guard types.contains(kind) || (kind == "integer" && types.contains("number")) else {
            return ["\(path): \(kind) where the schema says \(types)"]
        }
        if let allowed = rules["enum"]?.arrayValue, !allowed.contains(value) {
            return ["\(path): \(value) is not one of \(allowed)"]
        }
        var found: [String] = []
        if case .object(let members) = value {
            let properties = rules["properties"]?.objectValue ?? [:]
            for name in rules["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                found.append("\(path).\(name): required, absent")
            }
            for (name, member) in members {
                guard let rule = properties[name] else {
                    found.append("\(path).\(name): not in the schema")
                    continue
                }
                found += problems(member, rule, at: "\(path).\(name)")
            }
        }
        if case .array(let elements) = value, let items = rules["items"] {
            for (index, element) in elements.enumerated() { found += problems(element, items, at: "\(path)[\(index)]") }
        }
        return found
    }

    @Test func aKeyInEveryExampleIsRequiredAndTypesMerge() throws {
        let schema = JSONSchema.of(FindHitEntry.self)
        #expect(schema.types == [.object])
        #expect(schema.required == ["ref", "podcast", "title", "snippet", "at"])
        let at = schema.properties?.first { $0.name == "at" }?.schema
        #expect(at?.types == [.number, .null])
        // A key only some examples have is described but not required.
        let episode = JSONSchema.of(EpisodeEntry.self)
        #expect(episode.required?.contains("id") == true)
        #expect(episode.required?.contains("description") == false)
        #expect(episode.properties?.contains { $0.name == "description" } == true)
        let number = episode.properties?.first { $0.name == "number" }?.schema
        #expect(number?.types == [.string, .integer])
        let status = episode.properties?.first { $0.name == "status" }?.schema
        #expect(status?.properties?.map(\.name) == ["state", "bytes", "total", "message"])
    }

    @Test func everyExampleFitsItsOwnSchema() throws {
        func check<T: DescribedValue>(_ type: T.Type) throws {
            let schema = Value(encoded: JSONSchema.of(type))
            #expect(!T.examples.isEmpty, "\(type) has no examples")
            for example in T.examples {
                #expect(Self.problems(Value(encoded: example), schema) == [], "\(type)")
            }
        }
        try check(HitList.self)
        try check(SubscriptionList.self)
        try check(EpisodeEntries.self)
        try check(EpisodeDetail.self)
        try check(TranscriptPage.self)
        try check(QueueList.self)
        try check(StatsEntry.self)
        try check(QueueAddition.self)
        try check(MarkChange.self)
        try check(DownloadStart.self)
        try check(SubscribeAnswer.self)
    }

    @Test func everyToolDeclaresAnObjectSchemaForItsAnswer() {
        for tool in AssistantTools.definitions {
            #expect(tool.outputSchema?.objectValue?["type"]?.stringValue == "object", "\(tool.name)")
            #expect(tool.inputSchema.objectValue?["additionalProperties"]?.boolValue == false, "\(tool.name)")
        }
    }

    @Test func whatEachToolSendsFitsWhatItDeclares() async throws {
        try await AssistantToolsTests.withLibrary(allowChanges: true) { tools, _ in
            let calls: [(String, [String: Value])] = [
                ("subscriptions", [:]), ("episodes", ["podcast": .int(1)]), ("episode", ["ref": .string("1:1")]),
                ("search", ["words": .string("lighthouses")]), ("new", [:]), ("queue_add", ["ref": .string("1:2")]),
                ("queue", [:]), ("stats", [:]), ("mark", ["ref": .string("1:1"), "as": .string("played")]),
                ("subscribe", ["url": .string("http://feeds.invalid/show.xml")]),
            ]
            for (name, arguments) in calls {
                let answer = await tools.call(name, arguments)
                #expect(answer.isError == false, "\(name): \(answer.content)")
                let schema = try #require(AssistantTools.definitions.first { $0.name == name }?.outputSchema)
                let content = try #require(answer.structuredContent, "\(name)")
                #expect(Self.problems(content, schema) == [], "\(name)")
            }
        }
    }

    /// docs/reference.md documents the shapes once: every key of every value
    /// of the vocabulary is named there.
    @Test func theReferenceNamesEveryKeyOfTheVocabulary() throws {
        let reference = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../docs/reference.md").standardized,
            encoding: .utf8
        )
        let schemas: [(String, JSONSchema)] = [
            ("HitList", .of(HitList.self)), ("SubscriptionList", .of(SubscriptionList.self)),
            ("EpisodeEntries", .of(EpisodeEntries.self)), ("EpisodeDetail", .of(EpisodeDetail.self)),
            ("TranscriptPage", .of(TranscriptPage.self)), ("QueueList", .of(QueueList.self)),
            ("StatsEntry", .of(StatsEntry.self)), ("QueueAddition", .of(QueueAddition.self)),
            ("MarkChange", .of(MarkChange.self)), ("DownloadStart", .of(DownloadStart.self)),
            ("SubscribeAnswer", .of(SubscribeAnswer.self)),
        ]
        for (name, schema) in schemas {
            for path in schema.keyPaths {
                let key = String(path.split(separator: ".").last ?? "")
                #expect(
                    reference.contains("`\(key)`") || reference.contains("\"\(key)\""),
                    "\(name): docs/reference.md does not name \(path)"
                )
            }
        }
    }
}
