extension Prediction {
    /// The same prediction turned into "nothing to report": no class, confidence 0; the scores and
    /// distance are kept for diagnostics. Does not allocate.
    public var suppressed: Prediction {
        var p = self
        p.classIndex = nil
        p.confidence = 0
        return p
    }
}

extension Array where Element == any Postprocessor {
    /// Runs a raw decision made at `frame` through every stage in order: what a recogniser reports.
    /// Stream evaluation replays decisions through the same chain, so both always agree.
    mutating func process(_ raw: Prediction, frame: Int) -> Prediction {
        var p = raw
        for i in indices { p = self[i].process(p, frame: frame) }
        return p
    }
}

/// The indices of `wanted` among a pipeline's class `names`, for stages configured by class name.
/// - Throws: naming the field `classes` and the first name that is not a class.
func classIndices(of wanted: [String], in names: [String]) throws -> [Int] {
    try wanted.map { c in
        guard let i = names.firstIndex(of: c) else {
            throw GestureKitError("\"\(c)\" is not a class of the pipeline (\(names.joined(separator: ", ")))", field: "classes")
        }
        return i
    }
}
