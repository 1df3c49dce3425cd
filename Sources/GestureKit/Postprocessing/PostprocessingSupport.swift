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
