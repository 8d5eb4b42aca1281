import Library
import PlainText
import ShellKit

extension Command {
    static let set = Command(
        CommandSpec(
            "set",
            summary: "show or change settings (kept in the library)",
            details: """
                Without arguments, lists the settings with their values and where each
                comes from, and the subscriptions' own rules. 'set NAME VALUE' changes one;
                'set NAME default' goes back to the default. Quote a command with options:
                set player "mpv --no-video". Per subscription: 'set podcast N autodownload
                on' makes 'update' download its new episodes; 'set podcast N keep K' has
                cleanup delete the files of played episodes beyond its newest K downloads
                (never unplayed ones; 'keep all' keeps everything); 'set podcast N speed
                X' plays it at X over the speed setting ('default' follows it again). 'set transcripts auto
                on' has 'update' fetch the transcripts of new episodes, for 'find'. 'set sync auto on'
                has 'update' and 'play' sync afterwards ('sync login' first) while the prompt is
                back, saying only what failed.
                """,
            subcommands: Setting.allCases.map { setting in
                CommandSpec(
                    setting.name,
                    summary: setting.summary,
                    arguments: [value(of: setting).spec]
                )
            } + [
                CommandSpec(
                    "podcast",
                    summary:
                        "subscription N's auto-download (on|off), how many files to keep (K|all) or speed (X|default)",
                    arguments: [ruleSubscription.spec, rule.spec, ruleValue.spec]
                )
            ],
            verbOptional: true
        )
    ) { arguments, context throws(ShellError) in
        switch arguments.subcommand {
        case nil:
            try await listSettings(context)
        case "podcast":
            try await setPodcastRule(arguments, context)
        case let name?:
            guard let setting = Setting(rawValue: name) else { throw .usage(synopsis: arguments.synopsis) }
            let text = try arguments.required(value(of: setting))
            let value: String?
            if text == "default" {
                value = nil
            } else {
                do throws(SettingError) {
                    value = try setting.normalize(text)
                } catch {
                    throw .setting(error)
                }
            }
            try await context.session.change(setting, to: value)
            let shown = setting.isSecret && value != nil ? "set" : value ?? "\(setting.defaultText) (the default)"
            let noAccount = setting == .sync && value == "auto on" && !context.session.syncLoggedIn
            let hint = noAccount ? "; 'sync login URL USER' sets up the account" : ""
            context.say(
                "\(setting.name) is \(shown)\(hint)",
                json: .object(["name": .string(setting.name), "value": .string(setting.isSecret ? nil : value)])
            )
        }
        return .proceed
    }

    /// What Tab offers after `set NAME`.
    private static func valueWords(_ setting: Setting) -> [String] {
        switch setting {
        case .cleanup: ["on", "off", "default"]
        case .pager: ["none", "default"]
        case .transcripts, .sync: ["auto", "on", "off", "default"]
        default: ["default"]
        }
    }

    private static func listSettings(_ context: CommandContext) async throws(ShellError) {
        let session = context.session
        let effective = await session.effectiveSettings()
        // settings() opened the library when there is one; listing never makes one.
        let rules = session.services.library.opened != nil ? (try? await subscriptions(context)) ?? [] : []
        let podcasts = rules.map(\.podcast).filter { $0.autodownload || $0.keep != nil || $0.speed != nil }
        context.output(
            Render.settings(effective, podcasts: podcasts, width: context.console.width, color: context.console.color),
            json: JSONRender.settings(effective, podcasts: podcasts)
        )
    }

    private static func setPodcastRule(_ arguments: ParsedArguments, _ context: CommandContext) async throws(ShellError)
    {
        let podcast = try await subscription(arguments.required(ruleSubscription), arguments, context)
        let number = podcast.number
        let ruleText = try arguments.required(rule)
        let valueText = try arguments.required(ruleValue)
        guard let rule = PodcastRule(rawValue: ruleText) else {
            throw .usage(
                "set podcast N takes autodownload, keep or speed, not '\(ruleText)'",
                synopsis: arguments.synopsis
            )
        }
        let library = try context.session.library()
        let id = podcast.id ?? -1
        let title = podcast.title
        switch rule {
        case .autodownload:
            let on: Bool
            do throws(SettingError) {
                on = try Setting.onOff(valueText)
            } catch {
                throw .setting(error)
            }
            try await libraryCall { () async throws(LibraryError) in try await library.setAutodownload(id, on) }
            context.say(
                "\(number) \(title): autodownload \(on ? "on: 'update' downloads its new episodes" : "off")",
                json: .object(["number": .int(number), "autodownload": .bool(on)])
            )
        case .keep:
            let keep: Int?
            if valueText == "all" {
                keep = nil
            } else if let count = Int(valueText), count >= 0 {
                keep = count
            } else {
                throw .usage(
                    "keep takes a number of files or all, not '\(valueText)'",
                    synopsis: arguments.synopsis
                )
            }
            try await libraryCall { () async throws(LibraryError) in try await library.setKeep(id, keep) }
            var text = "\(number) \(title): "
            text +=
                keep.map { "keeping the newest \($0) downloaded files; played ones beyond them are deleted" }
                ?? "keeping every file"
            text += context.said(await context.session.cleanUp([id])).map { "\n" + $0 }.joined()
            context.output(text, json: .object(["number": .int(number), "keep": keep.map { .int($0) }]))
        case .speed:
            var speed: Double?
            if valueText != "default" {
                do throws(SettingError) {
                    speed = Double(try Setting.speed.normalize(valueText))
                } catch {
                    throw .setting(error)
                }
            }
            try await libraryCall { () async throws(LibraryError) in try await library.setSpeed(id, speed) }
            let said = speed.map { "plays at \(Setting.decimal($0))×" } ?? "plays at the speed setting"
            context.say(
                "\(number) \(title): \(said)",
                json: .object(["number": .int(number), "speed": speed.map { .double($0) } ?? .null])
            )
        }
    }
}

extension Command {
    /// The value `set NAME VALUE` takes for `setting`: the rest of the line for a
    /// command line (`set player "mpg123 {}"`), one word otherwise.
    private static func value(of setting: Setting) -> CommandArgument<String> {
        CommandArgument(
            setting.placeholder,
            rest: [.player, .pager, .transcripts, .sync].contains(setting),
            completion: .words(valueWords(setting))
        )
    }

    private static let ruleSubscription = CommandArgument<String>(
        "N",
        completion: .items(CompletionDomain.subscriptions)
    )
    // Read as text, so that a wrong rule is named with the rules there are.
    private static let rule = CommandArgument<String>(
        "autodownload|keep|speed",
        completion: .words(PodcastRule.allCases.map(\.rawValue))
    )
    private static let ruleValue = CommandArgument<String>(
        "VALUE",
        completion: .words(["on", "off", "all", "default"])
    )

    /// What `set podcast N` changes.
    enum PodcastRule: String, CaseIterable {
        case autodownload
        case keep
        case speed
    }
}
