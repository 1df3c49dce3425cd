import ArgumentParser
import GestureKit

/// The flags that say how to read a dataset file (CSV columns, sample rate), shared by every
/// command that reads one.
struct DatasetFlags: ParsableArguments {
    @Option(name: .customLong("label-column"), help: "CSV: the label column (default: label, activity or class).")
    var labelColumn: String?

    @Option(name: .customLong("session-column"), help: "CSV: the session column (default: session, sessionId or session_id).")
    var sessionColumn: String?

    @Option(help: ArgumentHelp("CSV: the channel columns to use, in order (default: all other numeric columns).", valueName: "a,b,c"))
    var channels: String?

    @Option(help: ArgumentHelp("CSV without a header row: the names of all columns.", valueName: "a,b,c"))
    var columns: String?

    @Option(name: .customLong("sample-rate"), help: "Samples per second, for formats that do not record it (.csv, .ts, .grt).")
    var sampleRate: Double?

    static func list(_ s: String?) -> [String]? { s.map(splitList) }

    func validate() throws {
        if let r = sampleRate, !(r > 0 && r.isFinite) { throw ValidationError("--sample-rate must be a positive number") }
        if let c = channels, DatasetFlags.list(c)?.isEmpty != false { throw ValidationError("--channels names no columns") }
        if let c = columns, DatasetFlags.list(c)?.isEmpty != false { throw ValidationError("--columns names no columns") }
    }

    var options: DatasetLoadOptions {
        DatasetLoadOptions(labelColumn: labelColumn, sessionColumn: sessionColumn,
                                   channels: DatasetFlags.list(channels), columns: DatasetFlags.list(columns),
                                   sampleRate: sampleRate)
    }
}

/// A window on the command line: `SIZE` or `SIZE,HOP` (hop defaults to the size).
struct WindowArgument: ExpressibleByArgument {
    let size: Int
    let hop: Int?

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard (1...2).contains(parts.count), let size = parts[0], size > 0 else { return nil }
        if parts.count == 2 {
            guard let hop = parts[1], hop > 0 else { return nil }
            self.hop = hop
        } else {
            hop = nil
        }
        self.size = size
    }

    static var defaultValueDescription: String { "SIZE[,HOP]" }
}

/// `--window SIZE[,HOP]` (or `--window SIZE --hop HOP`), the same on every command: train and
/// evaluate classify such windows; info and convert cut continuous recordings into them.
struct WindowFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Windows of SIZE frames, a decision every HOP frames (default HOP: SIZE); continuous recordings are cut into such windows.", valueName: "SIZE[,HOP]"))
    var window: WindowArgument?

    @Option(help: ArgumentHelp("Frames between windows, when --window gives only the size.", valueName: "HOP"))
    var hop: Int?

    func validate() throws {
        if let hop, hop < 1 { throw ValidationError("--hop must be a positive whole number") }
        if hop != nil && window == nil { throw ValidationError("--hop needs --window") }
        if hop != nil, window?.hop != nil { throw ValidationError("give the hop once: --window SIZE,HOP or --window SIZE --hop HOP") }
    }

    var spec: PipelineSpec.Window? {
        window.map { PipelineSpec.Window(size: $0.size, hop: hop ?? $0.hop ?? $0.size) }
    }

    /// The load options of `flags` with this cut applied.
    func options(_ flags: DatasetFlags) -> DatasetLoadOptions {
        var o = flags.options
        if let w = spec { o.cut = .windows(size: w.size, hop: w.hop, labelling: .majority) }
        return o
    }
}

extension WindowArgument {
    /// For `ValidationError` messages of ArgumentParser.
    static var allValueStrings: [String] { [] }
}
