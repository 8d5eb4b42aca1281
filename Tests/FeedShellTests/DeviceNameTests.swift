import FeedServices
import Testing

/// Names a player's FAT32 or exFAT card keeps: a table of hostile titles.
@Suite("Device names")
struct DeviceNameTests {
    @Test(arguments: [
        ("Ports: Sockets / Art?", ".mp3", "Ports_ Sockets _ Art_.mp3"),
        ("a<b>c\"d\\e|f*g", "", "a_b_c_d_e_f_g"),
        ("tab\there\u{7}bell", ".mp3", "tab here_bell.mp3"),
        ("trailing dots...", "", "trailing dots"),
        ("trailing space and dot . ", ".mp3", "trailing space and dot.mp3"),
        ("  leading   spaces", "", "leading spaces"),
        ("CON", ".mp3", "CON_.mp3"),
        ("lpt1", "", "lpt1_"),
        ("nul.txt", "", "nul.txt_"),
        ("...", ".mp3", "_.mp3"),
        ("", "", "_"),
        ("Café 🎧", ".m4a", "Café 🎧.m4a"),
    ])
    func hostileTitlesAreMadeSafe(title: String, suffix: String, expected: String) {
        #expect(DeviceName.clean(title, suffix: suffix) == expected)
    }

    @Test func longNamesKeepTheirExtensionWithin255() {
        let name = DeviceName.clean(String(repeating: "é", count: 300), suffix: ".mp3")
        #expect(name.utf16.count == 255)
        #expect(name.hasSuffix("é.mp3"))
        // A cut that leaves a trailing dot or space loses it too.
        let spaced = DeviceName.clean(String(repeating: "a", count: 250) + "     b", suffix: ".mp3", limit: 255)
        #expect(!spaced.dropLast(4).hasSuffix(" "))
    }

    @Test func namesAreUniqueWithoutCase() {
        var taken: Set<String> = []
        #expect(DeviceName.unique("Episode", suffix: ".mp3", taken: &taken) == "Episode.mp3")
        #expect(DeviceName.unique("EPISODE", suffix: ".mp3", taken: &taken) == "EPISODE (2).mp3")
        #expect(DeviceName.unique("episode?", suffix: ".mp3", taken: &taken) == "episode_.mp3")
        #expect(DeviceName.unique("Episode", suffix: ".mp3", taken: &taken) == "Episode (3).mp3")
    }
}
