/// JSON form: configuration keys, all optional with the defaults of
/// ``LSTMClassifier/init(hidden:layers:epochs:batchSize:learningRate:seed:dropout:convolution:weightDecay:clip:validationFraction:patience:schedule:balanceClasses:)``
/// (`hidden` 64, `layers` 1, `epochs` 100, `batch` 8, `learningRate` 0.005, `seed` 0, `dropout` 0.3,
/// `convolution` `{"filters": 64, "width": 4, "stride": 2}` (`null` for none), `weightDecay` 1e-4, `clip` 1, `validationFraction` 0.2, `patience` 30,
/// `schedule` "cosine", `balanceClasses` true), so a hand-written spec such as
/// `{"kind": "lstm", "hidden": 64, "epochs": 40}` decodes. The learned state (`classes`, `channels`,
/// `inputMean`, `inputStd`, `convWeights`, `convBias`, `lstmWeights`, `lstmBias`, `headWeights`,
/// `headBias`, `epochsRun`, `bestEpoch`) is present only once trained; floats are ``PackedFloats``.
extension LSTMClassifier {
    enum CodingKeys: String, CodingKey {
        case hidden, layers, epochs, batch, learningRate, seed, dropout, convolution, weightDecay, clip
        case validationFraction, patience, schedule, balanceClasses
        case classes, channels, inputMean, inputStd, convWeights, convBias, lstmWeights, lstmBias
        case headWeights, headBias, epochsRun, bestEpoch
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = LSTMClassifier()
        hidden = try c.decodeIfPresent(Int.self, forKey: .hidden) ?? d.hidden
        layers = try c.decodeIfPresent(Int.self, forKey: .layers) ?? d.layers
        epochs = try c.decodeIfPresent(Int.self, forKey: .epochs) ?? d.epochs
        batchSize = try c.decodeIfPresent(Int.self, forKey: .batch) ?? d.batchSize
        learningRate = try c.decodeIfPresent(Float.self, forKey: .learningRate) ?? d.learningRate
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? d.seed
        dropout = try c.decodeIfPresent(Float.self, forKey: .dropout) ?? d.dropout
        if !c.contains(.convolution) {
            convolution = d.convolution
        } else if try c.decodeNil(forKey: .convolution) {
            convolution = nil
        } else {
            convolution = try c.decode(Convolution.self, forKey: .convolution)
        }
        weightDecay = try c.decodeIfPresent(Float.self, forKey: .weightDecay) ?? d.weightDecay
        clip = try c.decodeIfPresent(Float.self, forKey: .clip) ?? d.clip
        validationFraction = try c.decodeIfPresent(Double.self, forKey: .validationFraction) ?? d.validationFraction
        patience = try c.decodeIfPresent(Int.self, forKey: .patience) ?? d.patience
        schedule = try c.decodeIfPresent(Schedule.self, forKey: .schedule) ?? d.schedule
        balanceClasses = try c.decodeIfPresent(Bool.self, forKey: .balanceClasses) ?? d.balanceClasses

        classes = try c.decodeIfPresent([String].self, forKey: .classes) ?? []
        channelCount = try c.decodeIfPresent(Int.self, forKey: .channels) ?? 0
        inputMean = try c.decodeIfPresent(PackedFloats.self, forKey: .inputMean)?.values ?? []
        inputStd = try c.decodeIfPresent(PackedFloats.self, forKey: .inputStd)?.values ?? []
        epochsRun = try c.decodeIfPresent(Int.self, forKey: .epochsRun) ?? 0
        bestEpoch = try c.decodeIfPresent(Int.self, forKey: .bestEpoch) ?? 0
        guard c.contains(.lstmWeights) else { parameters = []; return }
        // Reassemble the flat parameter vector in layout order; validate() checks each piece's size.
        let lw = try c.decode([PackedFloats].self, forKey: .lstmWeights)
        let lb = try c.decode([PackedFloats].self, forKey: .lstmBias)
        let cw = try c.decodeIfPresent(PackedFloats.self, forKey: .convWeights)?.values ?? []
        let cb = try c.decodeIfPresent(PackedFloats.self, forKey: .convBias)?.values ?? []
        let hw = try c.decode(PackedFloats.self, forKey: .headWeights).values
        let hb = try c.decode(PackedFloats.self, forKey: .headBias).values
        var sizes = ["convWeights": cw.count, "convBias": cb.count, "headWeights": hw.count, "headBias": hb.count,
                     "lstmWeights": lw.count, "lstmBias": lb.count]
        var theta = cw + cb
        for l in 0..<max(lw.count, lb.count) {
            if l < lw.count { theta += lw[l].values; sizes["lstmWeights[\(l)]"] = lw[l].values.count }
            if l < lb.count { theta += lb[l].values; sizes["lstmBias[\(l)]"] = lb[l].values.count }
        }
        parameters = theta + hw + hb
        decodedSizes = sizes
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(hidden, forKey: .hidden)
        try c.encode(layers, forKey: .layers)
        try c.encode(epochs, forKey: .epochs)
        try c.encode(batchSize, forKey: .batch)
        try c.encode(learningRate, forKey: .learningRate)
        try c.encode(seed, forKey: .seed)
        try c.encode(dropout, forKey: .dropout)
        if let convolution { try c.encode(convolution, forKey: .convolution) } else { try c.encodeNil(forKey: .convolution) }
        try c.encode(weightDecay, forKey: .weightDecay)
        try c.encode(clip, forKey: .clip)
        try c.encode(validationFraction, forKey: .validationFraction)
        try c.encode(patience, forKey: .patience)
        try c.encode(schedule, forKey: .schedule)
        try c.encode(balanceClasses, forKey: .balanceClasses)
        guard isTrained else { return }
        let layout = shape.layout
        func piece(_ r: Range<Int>) -> PackedFloats { PackedFloats(Array(parameters[r])) }
        try c.encode(classes, forKey: .classes)
        try c.encode(channelCount, forKey: .channels)
        try c.encode(PackedFloats(inputMean), forKey: .inputMean)
        try c.encode(PackedFloats(inputStd), forKey: .inputStd)
        if convolution != nil {
            try c.encode(piece(layout.convWeights), forKey: .convWeights)
            try c.encode(piece(layout.convBias), forKey: .convBias)
        }
        try c.encode(layout.lstmWeights.map(piece), forKey: .lstmWeights)
        try c.encode(layout.lstmBias.map(piece), forKey: .lstmBias)
        try c.encode(piece(layout.headWeights), forKey: .headWeights)
        try c.encode(piece(layout.headBias), forKey: .headBias)
        try c.encode(epochsRun, forKey: .epochsRun)
        try c.encode(bestEpoch, forKey: .bestEpoch)
    }

    /// Checks the configuration ranges and, when trained, every tensor's size against the shape the
    /// configuration implies and that every value is finite.
    public func validate() throws {
        try checkConfiguration()
        guard isTrained || !classes.isEmpty || channelCount != 0 else { return }
        guard classes.count >= 2 else { throw GestureKitError("need at least 2 classes, found \(classes.count)", field: "classes") }
        guard channelCount >= 1 else { throw GestureKitError("must be at least 1, found \(channelCount)", field: "channels") }
        try PackedFloats(inputMean).check("inputMean", count: channelCount)
        try PackedFloats(inputStd).check("inputStd", count: channelCount)
        if let bad = inputStd.firstIndex(where: { $0 <= 0 }) {
            throw GestureKitError("value \(bad) is not positive", field: "inputStd")
        }
        let layout = shape.layout
        let named: [(String, Range<Int>)] = [("convWeights", layout.convWeights), ("convBias", layout.convBias)]
            + layout.lstmWeights.enumerated().map { ("lstmWeights[\($0.offset)]", $0.element) }
            + layout.lstmBias.enumerated().map { ("lstmBias[\($0.offset)]", $0.element) }
            + [("headWeights", layout.headWeights), ("headBias", layout.headBias)]
        if let sizes = decodedSizes {
            for key in ["lstmWeights", "lstmBias"] where sizes[key] != layers {
                throw GestureKitError("expected \(layers) arrays (one per layer), found \(sizes[key] ?? 0)", field: key)
            }
            for (name, r) in named where (sizes[name] ?? 0) != r.count {
                throw GestureKitError("expected \(r.count) values for this shape, found \(sizes[name] ?? 0)", field: name)
            }
        }
        guard parameters.count == layout.count else {
            throw GestureKitError("expected \(layout.count) values, found \(parameters.count)", field: "parameters")
        }
        for (name, r) in named { try PackedFloats(Array(parameters[r])).check(name) }
    }
}
