import Foundation

/// The sktime/aeon `.ts` time-series classification format (UEA/UCR archives).
///
/// ```
/// # comment
/// @problemName BasicMotions
/// @timeStamps false
/// @univariate false
/// @dimensions 6
/// @equalLength true
/// @seriesLength 100
/// @classLabel true Standing Running Walking Badminton
/// @data
/// 0.07,0.07,...:0.39,0.39,...:...:Standing
/// ```
/// Each data line is one example: dimensions separated by `:`, values by `,`, the class label
/// last. Univariate and multivariate, equal and unequal lengths are read. Missing values (`?` or
/// `NaN`) that end a dimension are padding (the UCR archive pads unequal lengths so) and are dropped;
/// anywhere else they are an error (GestureKit does not impute), and so are time stamps. Examples
/// have no session or user and the sample rate is unknown.
public enum TSFormat {
    static let knownKeys: Set<String> = ["problemname", "timestamps", "missing", "univariate", "dimension",
                                         "dimensions", "equallength", "serieslength", "classlabel", "data",
                                         "targetlabel"]

    /// Reads a `.ts` file. - Complexity: O(file size).
    public static func read(_ path: String) throws -> Dataset {
        try parse(TextInput(path: path))
    }

    /// Parses `.ts` text held in memory; `name` is used in error messages. - Complexity: O(bytes).
    public static func parse(_ bytes: [UInt8], name: String) throws -> Dataset {
        try parse(TextInput(bytes: bytes, name: name))
    }

    static func parse(_ input: TextInput) throws -> Dataset {
        return try input.reading(what: "a .ts file") { try input.bytes.withUnsafeBufferPointer { b in
            try DecimalParsing.powersOfTen.withUnsafeBufferPointer { p in
                try parse(b, p.baseAddress!, input)
            }
        }
        }
    }

    private static func parse(_ b: UnsafeBufferPointer<UInt8>, _ pow10: UnsafePointer<Double>,
                              _ input: TextInput) throws -> Dataset {
        let base = b.baseAddress!
        let n = b.count
        var pos = 0
        var line = 0
        var inData = false
        var dimensions: Int? = nil
        var univariate: Bool? = nil
        var equalLength: Bool? = nil
        var seriesLength: Int? = nil
        var hasLabels: Bool? = nil
        var declaredClasses: [String] = []
        var problemName: String? = nil
        var examples: [Example] = []
        var dataDims: Int? = nil

        func fail(_ message: String, field: String? = nil) -> GestureKitError { input.error(message, line: line, field: field) }
        func flag(_ words: [Substring], _ key: String) throws -> Bool {
            guard words.count >= 2 else { throw fail("expected true or false after @\(key)", field: "@\(key)") }
            switch words[1].lowercased() {
            case "true": return true
            case "false": return false
            default: throw fail("expected true or false, found \"\(words[1].prefix(40))\"", field: "@\(key)")
            }
        }
        func count(_ words: [Substring], _ key: String) throws -> Int {
            guard words.count >= 2, let v = Int(words[1]), v > 0 else {
                throw fail("expected a positive whole number", field: "@\(key)")
            }
            return v
        }

        while pos < n {
            var end = pos
            while end < n, base[end] != 10 { end += 1 }
            var stop = end
            while stop > pos, base[stop - 1] == 13 || base[stop - 1] == 32 || base[stop - 1] == 9 { stop -= 1 }
            var start = pos
            while start < stop, base[start] == 32 || base[start] == 9 { start += 1 }
            line += 1
            pos = end + 1
            if start == stop || base[start] == UInt8(ascii: "#") { continue }
            if !inData {
                guard base[start] == UInt8(ascii: "@") else {
                    throw fail("expected a @keyword header line or @data before the data")
                }
                let text = String(decoding: UnsafeBufferPointer(start: base + start + 1, count: stop - start - 1), as: UTF8.self)
                let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
                let key = words.first.map { $0.lowercased() } ?? ""
                guard knownKeys.contains(key) else {
                    throw fail("unknown header keyword \"@\(text.prefix(40).split(separator: " ").first ?? "")\"")
                }
                switch key {
                case "problemname": problemName = words.dropFirst().joined(separator: " ")
                case "timestamps":
                    if try flag(words, "timeStamps") { throw fail("time stamps are not supported (@timeStamps true)", field: "@timeStamps") }
                case "missing": _ = try flag(words, "missing")
                case "univariate": univariate = try flag(words, "univariate")
                case "dimension", "dimensions": dimensions = try count(words, "dimensions")
                case "equallength": equalLength = try flag(words, "equalLength")
                case "serieslength": seriesLength = try count(words, "seriesLength")
                case "classlabel":
                    hasLabels = try flag(words, "classLabel")
                    declaredClasses = words.dropFirst(2).map(String.init)
                    if hasLabels == true, declaredClasses.isEmpty { throw fail("@classLabel true lists no class labels", field: "@classLabel") }
                case "targetlabel": throw fail("regression files (@targetLabel) are not supported", field: "@targetLabel")
                case "data":
                    guard hasLabels != nil else { throw fail("@classLabel must come before @data") }
                    if univariate == true, let d = dimensions, d != 1 {
                        throw fail("@univariate true but @dimensions \(d)", field: "@dimensions")
                    }
                    if univariate == true, dimensions == nil { dimensions = 1 }
                    inData = true
                default: break
                }
                continue
            }
            // A data line: dim0 : dim1 : ... [: label]
            var fields: [(Int, Int)] = []
            var s = start
            for i in start...stop where i == stop || base[i] == UInt8(ascii: ":") {
                fields.append((s, i))
                s = i + 1
            }
            var label: String? = nil
            if hasLabels == true {
                guard fields.count >= 2 else { throw fail("expected values and a class label separated by ':'") }
                let (ls, le) = fields.removeLast()
                let l = String(decoding: UnsafeBufferPointer(start: base + ls, count: le - ls), as: UTF8.self)
                    .trimmingCharacters(in: .whitespaces)
                guard declaredClasses.contains(l) else {
                    throw fail("class label \"\(l.prefix(40))\" is not declared in @classLabel", field: "class label")
                }
                label = l
            }
            let d = fields.count
            if let want = dataDims ?? dimensions, want != d {
                throw fail("expected \(want) dimensions, found \(d)")
            }
            dataDims = d
            var channels: [[Float]] = []
            channels.reserveCapacity(d)
            var length: Int? = nil
            var padded = 0
            for (k, (fs, fe)) in fields.enumerated() {
                var values: [Float] = []
                values.reserveCapacity(min(seriesLength ?? 64, fe - fs + 1))
                // Missing values (`?`, `NaN`) that end a dimension pad a shorter series to the
                // longest (the UCR archive's unequal-length sets): dropped. Elsewhere they are an error.
                var padding = 0
                var cs = fs
                for i in fs...fe where i == fe || base[i] == UInt8(ascii: ",") {
                    var a = cs, z = i
                    while a < z, base[a] == 32 || base[a] == 9 { a += 1 }
                    while z > a, base[z - 1] == 32 || base[z - 1] == 9 { z -= 1 }
                    let cell = UnsafeBufferPointer(start: base + a, count: z - a)
                    cs = i + 1
                    let v: Float
                    if z - a == 1, base[a] == UInt8(ascii: "?") {
                        v = .nan
                    } else {
                        guard let parsed = DecimalParsing.parseFloat(base + a, z - a, pow10) else {
                            throw fail(a == z ? "empty value" : "expected a number, found \(TextInput.quote(cell))", field: "dimension \(k)")
                        }
                        v = parsed
                    }
                    if v.isNaN {
                        padding += 1
                        continue
                    }
                    guard v.isFinite else { throw fail("\(TextInput.quote(cell)) is not a finite number", field: "dimension \(k)") }
                    guard padding == 0 else {
                        throw fail("missing value at value \(values.count + 1) (only missing values that end a series, padding it, are read)",
                                   field: "dimension \(k)")
                    }
                    values.append(v)
                }
                guard !values.isEmpty else { throw fail("no values, only missing ones", field: "dimension \(k)") }
                if let length, values.count != length {
                    throw fail("dimension \(k) has \(values.count) values, dimension 0 has \(length)")
                }
                length = values.count
                padded = max(padded, values.count + padding)
                channels.append(values)
            }
            if equalLength == true, let want = seriesLength, padded != want {
                throw fail("series has \(padded) values per dimension, @seriesLength says \(want)")
            }
            examples.append(Example(series: TimeSeries(channels: channels), label: label))
        }
        guard inData else { throw input.error("no @data line", line: max(line, 1)) }
        guard !examples.isEmpty else { throw input.error("no data after @data", line: max(line, 1)) }
        return Dataset(examples: examples, classes: hasLabels == true ? declaredClasses : [],
                       channelNames: TimeSeries.defaultNames(dataDims ?? 1), source: problemName ?? (input.name as NSString).lastPathComponent)
    }

    // MARK: Writing

    /// Writes a per-example dataset as a `.ts` file (labels must be single tokens without `:`).
    /// - Complexity: O(values).
    public static func write(_ dataset: Dataset, to path: String) throws {
        try writeAtomically(try encode(dataset, name: path), to: path)
    }

    /// The `.ts` text ``write(_:to:)`` writes; `name` is used in error messages.
    /// - Complexity: O(values).
    public static func encode(_ dataset: Dataset, name: String = "dataset.ts") throws -> [UInt8] {
        guard !dataset.examples.isEmpty else { throw GestureKitError("no examples to write", file: name) }
        if dataset.examples.contains(where: { $0.label == nil }) {
            throw GestureKitError(".ts files cannot hold unlabelled (null) examples", file: name)
        }
        for c in dataset.classes where c.isEmpty || c.contains(where: { $0.isWhitespace || $0 == ":" }) {
            throw GestureKitError("class name \"\(c)\" is empty or contains spaces or ':', which .ts cannot store", file: name)
        }
        let lengths = Set(dataset.examples.map(\.series.frameCount))
        let d = dataset.channelCount
        var out: [UInt8] = []
        let problem = ((dataset.source ?? "GestureKit") as NSString).deletingPathExtension.replacingOccurrences(of: " ", with: "_")
        out.append("# Written by GestureKit\n@problemName \(problem)\n@timeStamps false\n@missing false\n")
        out.append("@univariate \(d == 1)\n@dimensions \(d)\n@equalLength \(lengths.count == 1)\n")
        if lengths.count == 1 { out.append("@seriesLength \(lengths.first!)\n") }
        out.append("@classLabel true \(dataset.classes.joined(separator: " "))\n@data\n")
        for e in dataset.examples {
            for c in 0..<d {
                for f in 0..<e.series.frameCount {
                    if f > 0 { out.append(44) }
                    out.append(DecimalParsing.format(e.series[f, c]))
                }
                out.append(58)
            }
            out.append(e.label!)
            out.append(10)
        }
        return out
    }
}
