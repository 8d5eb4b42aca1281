import ShellKit
import Testing

@Suite("Selectors")
struct SelectorTests {
    private func numbers(_ text: String, count: Int, forms: Selector.Forms = .downloads) -> [Int]? {
        guard case .success(let selector) = Selector.parse(text, forms: forms) else { return nil }
        return try? selector.numbers(count: count).get()
    }

    @Test(arguments: [
        ("3", 5, [3]), ("2-4", 5, [2, 3, 4]), ("1,3", 5, [1, 3]), ("1-2,5", 5, [1, 2, 5]),
        ("all", 3, [1, 2, 3]), ("2,2,1-2", 5, [2, 1]), ("5", 5, [5]), ("2:1-2", 5, [1, 2]), ("t2", 3, [2]),
    ])
    func selects(text: String, count: Int, expected: [Int]) {
        #expect(numbers(text, count: count) == expected)
    }

    @Test(arguments: ["0", "6", "4-2", "1-", "-1", "a", "1,,2", "", "all", "x:1", "0:1"])
    func rejects(text: String) {
        #expect(numbers(text, count: text == "all" ? 0 : 5) == nil)
    }

    /// What list the numbers are of, parsed once.
    @Test func scopes() throws {
        #expect(try Selector.parse("3:2-4", forms: .downloads).get().scope == .subscription(3))
        #expect(try Selector.parse("tall", forms: .downloads).get().scope == .songs)
        #expect(try Selector.parse("new", forms: .downloads).get().scope == .new)
        #expect(try Selector.parse("4", forms: .downloads).get().scope == .loaded)
        #expect(try Selector.parse("2:all", forms: .downloads).get().isAll)
        #expect(try !Selector.parse("3", forms: .downloads).get().isSeveral)
        #expect(try Selector.parse("1,3", forms: .downloads).get().isSeveral)
    }

    /// A form the argument does not take, and the part that is wrong, are named.
    @Test func problemsNameTheBadPart() {
        #expect(Selector.parse("1-3", forms: .oneEpisode) == .failure(.formNotTaken("1-3")))
        #expect(Selector.parse("new", forms: .oneEpisode) == .failure(.formNotTaken("new")))
        #expect(Selector.parse("t1", forms: .oneEpisode) == .failure(.formNotTaken("t1")))
        #expect(Selector.parse("1,x,3", forms: .downloads) == .failure(.malformed("x", noun: "episode")))
        #expect(Selector.parse("tx", forms: .downloads) == .failure(.malformed("x", noun: "song")))
        #expect(Selector.parse("p:3", forms: .downloads) == .failure(.badSubscription("p")))
        let past = try? Selector.parse("1-3,9", forms: .downloads).get().numbers(count: 5)
        #expect(past == .failure(.outOfRange("9")))
        #expect(Selector.Problem.outOfRange("9").description(noun: "episode", count: 5) == "no episode 9 (1-5)")
        #expect(
            Selector.Problem.outOfRange("9").description(noun: "episode", count: 5, prefix: "2:", owner: "Radio")
                == "no episode 2:9 (1-5 in Radio)"
        )
    }
}
