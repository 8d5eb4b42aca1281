import FeedServices
import Foundation
import Testing

@testable import FeedShell

@Suite("Results as JSON")
struct JSONValueEncoderTests {
    private struct Inner: Encodable {
        let name: String
        let sizes: [Int]
    }

    private struct Outer: Encodable {
        let zebra: Int
        let apple: String
        let missing: String?
        let inner: Inner
        let when: Date
        let url: URL
        let raw: JSONValue
        let flag: Bool
        let ratio: Double
    }

    @Test func keysKeepTheirOrderAndValuesTheirTypes() throws {
        let value = Outer(
            zebra: 1,
            apple: "a\"b",
            missing: nil,
            inner: Inner(name: "n", sizes: [1, 2]),
            when: Date(timeIntervalSince1970: 0),
            url: URL(string: "https://example.com/x?y=1")!,
            raw: .object([.init(key: "kept", value: .bool(true))]),
            flag: false,
            ratio: 1.5
        )
        let json = try JSONValueEncoder().encode(value)
        // Written as declared, not sorted; a nil optional is left out, as a
        // synthesized conformance leaves it out; a JSONValue is taken as it is.
        #expect(
            json.text
                == #"{"zebra":1,"apple":"a\"b","inner":{"name":"n","sizes":[1,2]},"when":"1970-01-01T00:00:00Z","#
                + #""url":"https://example.com/x?y=1","raw":{"kept":true},"flag":false,"ratio":1.5}"#
        )
    }

    private struct ExplicitNull: Encodable {
        let value: Int?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(value, forKey: .value)
        }

        private enum CodingKeys: CodingKey { case value }
    }

    private struct Song: Encodable {
        var title: String
        @Nullable var album: String?
        var year: Int?
    }

    @Test func aNullableMemberIsNullWhereAPlainOptionalIsLeftOut() throws {
        #expect(
            try JSONValueEncoder().encode(Song(title: "Intro", album: nil)).text == #"{"title":"Intro","album":null}"#
        )
        #expect(
            try JSONValueEncoder().encode(Song(title: "Intro", album: "One", year: 2026)).text
                == #"{"title":"Intro","album":"One","year":2026}"#
        )
        // Foundation's encoder writes it the same way.
        let data = try JSONEncoder().encode(Song(title: "Intro", album: nil))
        #expect(String(decoding: data, as: UTF8.self).contains(#""album":null"#))
    }

    @Test func anOptionalEncodedOnPurposeIsNull() throws {
        #expect(try JSONValueEncoder().encode(ExplicitNull(value: nil)).text == #"{"value":null}"#)
        #expect(try JSONValueEncoder().encode([ExplicitNull(value: 3)]).text == #"[{"value":3}]"#)
    }

    @Test func aResultWithNothingToSayIsNull() throws {
        #expect(try JSONValueEncoder().encode(NoResult()) == .null)
        #expect(NoResult().text(on: Page(width: 80, color: false)) == nil)
    }

    @Test func aJSONValueEncodesTheSameThroughFoundation() throws {
        let value: JSONValue = .object([
            .init(key: "b", value: .int(2)), .init(key: "a", value: .array([.string("x"), .null, .double(0.5)])),
        ])
        let data = try JSONEncoder().encode(value)
        let decoded = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(decoded["b"] as? Int == 2)
        #expect((decoded["a"] as? [Any])?.count == 3)
    }
}
