import Testing

@testable import PlainText
@testable import ShellKit

@Suite("Completion from specs")
struct SpecCompleterTests {
    let completer = Completer(specs: Specs.all)

    private func words(_ text: String, items: [CompletionItem] = []) -> [String] {
        completer.complete(text) { _ in items }.candidates.map(\.word)
    }

    @Test func namesVerbsFlagsAndValues() {
        #expect(words("lo") == ["lookup"])
        #expect(words("e") == ["exit"])
        #expect(words("met ") == ["search", "object"])
        #expect(words("met search x --") == ["--medium", "--has-images", "--order"])
        #expect(words("met search x --has-images --") == ["--medium", "--order"])
        #expect(words("met search x --order ") == ["new", "old"])
        #expect(words("met search x --medium p") == ["Paintings", "Prints"])
        #expect(words("help q") == ["quit"])
        #expect(words("quit ").isEmpty)
    }

    @Test func itemsComeFromTheApplicationByDomain() {
        let items = [CompletionItem("1", note: "One"), CompletionItem("12", note: "Twelve"), CompletionItem("2")]
        var asked: [String] = []
        let completion = completer.complete("open 1") { domain in
            asked.append(domain)
            return items
        }
        #expect(asked == ["results"])
        #expect(completion.candidates.map(\.word) == ["1", "12"])
        #expect(completion.candidates.map(\.note) == ["One", "Twelve"])
        #expect(words("get 1,", items: items) == ["1,1", "1,12", "1,2"])
        #expect(words("get 1-1", items: items) == ["1-1", "1-12"])
    }

    @Test func theWordBeingTypedIsTokenizedLikeTheLine() {
        #expect(Tokenizer.partial("source 'my fi") == PartialLine(words: ["source"], current: "my fi", replacing: 6))
        #expect(Tokenizer.partial("source my\\ fi") == PartialLine(words: ["source"], current: "my fi", replacing: 6))
        #expect(Tokenizer.partial("lookup; get ") == PartialLine(words: ["get"], current: "", replacing: 0))
        #expect(Tokenizer.escape("a b's;c") == "a\\ b\\'s\\;c")
    }
}
