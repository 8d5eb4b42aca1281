import FeedServices
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
                X' plays it at X over the speed setting ('default' follows it again). The
                listening settings (skip-silence, loudness, volume-boost, skip-intro,
                skip-outro, skip-chapters) apply to every podcast, and each subscription
                may have its own: 'set podcast N skip-intro 45s', 'set podcast N
                skip-chapters sponsor ad'. They apply however the episode is named (N,
                P:E, fN, bN, play queue). 'set transcripts auto
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
                        "subscription N's auto-download (on|off), files to keep (K|all), speed (X|default), "
                        + "or a listening setting of its own (skip-intro 45s; default follows the library's)",
                    arguments: [ruleSubscription.spec, rule.spec, ruleValue.spec]
                )
            ],
            verbOptional: true
        )
    ) { arguments, context throws(ShellError) in
        switch arguments.subcommand {
        case nil:
            return try await listSettings(context)
        case "podcast":
            return try await setPodcastRule(arguments, context)
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
            try await context.services.library.set(setting, to: value)
            await context.services.downloads.applySettings()
            let noAccount = setting == .sync && value == "auto on" && !context.services.sync.syncLoggedIn
            return SettingChanged(setting: setting, value: value, needsSyncLogin: noAccount)
        }
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

    private static func listSettings(_ context: CommandContext) async throws(ShellError) -> SettingsListing {
        let session = context.session
        let effective = await session.services.library.effectiveSettings()
        // settings() opened the library when there is one; listing never makes one.
        let rules = session.services.library.opened != nil ? (try? await subscriptions(context)) ?? [] : []
        let own = (try? await session.services.library.opened?.allPodcastSettings()) ?? [:]
        let podcasts = rules.map(\.podcast).filter {
            $0.autodownload || $0.keep != nil || $0.speed != nil || own[$0.id ?? -1] != nil
        }
        return SettingsListing(settings: effective, podcasts: podcasts, own: own)
    }

    private static func setPodcastRule(
        _ arguments: ParsedArguments,
        _ context: CommandContext
    ) async throws(ShellError) -> RuleChanged {
        let podcast = try await subscription(arguments.required(ruleSubscription), arguments, context)
        let number = podcast.number
        let ruleText = try arguments.required(rule)
        let valueText = try arguments.required(ruleValue)
        let library = try context.session.library()
        let id = podcast.id ?? -1
        let title = podcast.title
        if let setting = Setting(rawValue: ruleText), Setting.perPodcast.contains(setting) {
            var value: String?
            if valueText != "default" {
                do throws(SettingError) {
                    value = try setting.normalize(valueText)
                } catch {
                    throw .setting(error)
                }
            }
            try await libraryCall { () async throws(LibraryError) in
                try await library.setPodcastSetting(id, setting, to: value)
            }
            return RuleChanged(number: number, title: title, rule: .listening(setting, value))
        }
        guard let rule = PodcastRule(rawValue: ruleText) else {
            throw .usage(.noSuchRule(ruleText), synopsis: arguments.synopsis)
        }
        switch rule {
        case .autodownload:
            let on: Bool
            do throws(SettingError) {
                on = try Setting.onOff(valueText)
            } catch {
                throw .setting(error)
            }
            try await libraryCall { () async throws(LibraryError) in try await library.setAutodownload(id, on) }
            return RuleChanged(number: number, title: title, rule: .autodownload(on))
        case .keep:
            let keep: Int?
            if valueText == "all" {
                keep = nil
            } else if let count = Int(valueText), count >= 0 {
                keep = count
            } else {
                throw .usage(.badKeep(valueText), synopsis: arguments.synopsis)
            }
            try await libraryCall { () async throws(LibraryError) in try await library.setKeep(id, keep) }
            let deletions = await context.services.downloads.cleanUp([id])
            context.report(.deleted(deletions))
            return RuleChanged(number: number, title: title, rule: .keep(keep, deleted: deletions))
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
            return RuleChanged(number: number, title: title, rule: .speed(speed))
        }
    }
}

/// The settings as `set` lists them, with the subscriptions that have rules of
/// their own.
struct SettingsListing: CommandResult {
    let settings: [EffectiveSetting]
    let podcasts: [StoredPodcast]
    /// The subscriptions' own listening settings, by podcast id.
    var own: [Int64: [Setting: String]] = [:]
}

/// A setting `set NAME VALUE` changed (to its default when `value` is nil).
struct SettingChanged: CommandResult {
    let setting: Setting
    let value: String?
    /// `set sync auto on` without an account: `sync login` comes first.
    let needsSyncLogin: Bool
}

/// A rule `set podcast N` changed for subscription `number`.
struct RuleChanged: CommandResult {
    /// The rule and its new value.
    enum Rule: Sendable {
        case autodownload(Bool)
        /// How many files to keep (all when nil), and what cleanup deleted for it.
        case keep(Int?, deleted: [CleanupDeletion])
        /// The speed over the setting (the setting's when nil).
        case speed(Double?)
        /// A listening setting of its own (the library's when nil).
        case listening(Setting, String?)
    }

    let number: Int
    let title: String
    let rule: Rule
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
        "RULE",
        completion: .words(PodcastRule.allCases.map(\.rawValue) + Setting.perPodcast.map(\.name))
    )
    private static let ruleValue = CommandArgument<String>(
        "VALUE",
        rest: true,
        completion: .words(["on", "off", "all", "default"])
    )

    /// What `set podcast N` changes.
    enum PodcastRule: String, CaseIterable {
        case autodownload
        case keep
        case speed
    }
}
