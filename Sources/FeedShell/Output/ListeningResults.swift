import Library
import PlainText
import TerminalKit

extension ShownTranscript {
    func text(on page: Page) -> String? { Render.transcript(transcript, title: title, width: page.width) }
    func encode(to encoder: any Encoder) throws {
        try JSONRender.transcript(transcript, title: title).encode(to: encoder)
    }
}

extension Played {
    func text(on page: Page) -> String? { Render.played(end, label: plan.label, saved: saved, player: plan.player) }
    func encode(to encoder: any Encoder) throws {
        try JSONRender.played(end, plan: plan, saved: saved).encode(to: encoder)
    }
}

extension QueuePlayed {
    func text(on page: Page) -> String? {
        Render.queuePlayed(plays.filter(\.end.finished).count, left: left, playlist: playlist)
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for play in plays { try container.encode(play) }
    }
}

extension QueueChanged {
    func text(on page: Page) -> String? {
        if let added {
            let already = self.already > 0 ? " (\(self.already) already queued)" : ""
            return "queued \(Formatting.count(added, "episode"))\(already); the queue has \(count)"
        }
        let removed = Formatting.count(removed ?? 0, "episode")
        return cleared ? "took \(removed) out of the queue; it is empty" : "took \(removed) out of the queue"
    }
}

extension QueueListing {
    func text(on page: Page) -> String? {
        let list =
            entries.isEmpty
            ? "the queue is empty: 'queue add SELECTOR' adds episodes" : page.render(Render.queue(entries))
        return (moved.map { "moved \($0.from) to \($0.to)\n" } ?? "") + list
    }

    func encode(to encoder: any Encoder) throws { try JSONRender.queue(entries).encode(to: encoder) }
}

extension SettingsListing {
    func text(on page: Page) -> String? {
        Render.settings(settings, podcasts: podcasts, own: own, width: page.width, color: page.color)
    }

    func encode(to encoder: any Encoder) throws {
        try JSONRender.settings(settings, podcasts: podcasts, own: own).encode(to: encoder)
    }
}

extension SettingChanged {
    func text(on page: Page) -> String? {
        let shown = setting.isSecret && value != nil ? "set" : value ?? "\(setting.defaultText) (the default)"
        let hint = needsSyncLogin ? "; 'sync login URL USER' sets up the account" : ""
        return SafeLine("\(setting.name) is \(shown)\(hint)").description
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(setting.name, forKey: .name)
        // A secret's value is never given back.
        try container.encode(setting.isSecret ? nil : value, forKey: .value)
    }

    private enum CodingKeys: CodingKey {
        case name
        case value
    }
}

extension RuleChanged {
    func text(on page: Page) -> String? {
        let head = SafeLine("\(number) \(title): ").description
        switch rule {
        case .autodownload(let on):
            return head + "autodownload " + (on ? "on: 'update' downloads its new episodes" : "off")
        case .keep(let keep, let deleted):
            let kept =
                keep.map { "keeping the newest \($0) downloaded files; played ones beyond them are deleted" }
                ?? "keeping every file"
            return head + kept + deleted.map { "\n" + $0.message }.joined()
        case .speed(let speed):
            return head + (speed.map { "plays at \(Setting.decimal($0))×" } ?? "plays at the speed setting")
        case .listening(let setting, let value):
            return head + SafeLine("\(setting.name) \(value ?? "follows the library's setting")").description
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        switch rule {
        case .autodownload(let on): try container.encode(on, forKey: .autodownload)
        case .keep(let keep, _): try container.encodeIfPresent(keep, forKey: .keep)
        case .speed(let speed): try container.encode(speed, forKey: .speed)
        case .listening(let setting, let value):
            try container.encode(setting.name, forKey: .name)
            try container.encode(value, forKey: .value)
        }
    }

    private enum CodingKeys: CodingKey {
        case number
        case autodownload
        case keep
        case speed
        case name
        case value
    }
}
