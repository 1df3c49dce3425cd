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

/// `--window SIZE,HOP` for the commands that show or convert data as it is cut into examples.
struct WindowCutFlag: ParsableArguments {
    @Option(help: ArgumentHelp("Cut continuous recordings into fixed windows of SIZE frames every HOP frames instead of labelled segments (convert then writes the windows as examples).", valueName: "SIZE,HOP"))
    var window: String?

    func validate() throws {
        if let w = window {
            let parts = w.split(separator: ",").compactMap { Int($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
                throw ValidationError("--window expects SIZE,HOP (two positive whole numbers), got \"\(w)\"")
            }
        }
    }

    /// The load options of `flags` with this cut applied.
    func options(_ flags: DatasetFlags) -> DatasetLoadOptions {
        var o = flags.options
        if let w = window {
            let parts = w.split(separator: ",").compactMap { Int($0) }
            o.cut = .windows(size: parts[0], hop: parts[1], labelling: .majority)
        }
        return o
    }
}
