/// JSON form: see ``MiniRocket``.
extension MiniRocket {
    enum CodingKeys: String, CodingKey { case features, maxDilations, seed, trained }

    enum TrainedKeys: String, CodingKey {
        case channelNames, length, dilations, featuresPerDilation, channelCounts, channelIndices, padded, biases
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(features: try c.decodeIfPresent(Int.self, forKey: .features) ?? 10_000,
                  maxDilations: try c.decodeIfPresent(Int.self, forKey: .maxDilations) ?? 32,
                  seed: try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 0)
        if c.contains(.trained) {
            let t = try c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            model = Model(channelNames: try t.decode([String].self, forKey: .channelNames),
                          length: try t.decode(Int.self, forKey: .length),
                          dilations: try t.decode([Int32].self, forKey: .dilations),
                          featuresPerDilation: try t.decode([Int32].self, forKey: .featuresPerDilation),
                          channelCounts: try t.decode([Int32].self, forKey: .channelCounts),
                          channelIndices: try t.decode([Int32].self, forKey: .channelIndices),
                          padded: try t.decode([UInt8].self, forKey: .padded),
                          biases: try t.decode(PackedFloats.self, forKey: .biases).values)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(requestedFeatures, forKey: .features)
        try c.encode(maxDilations, forKey: .maxDilations)
        try c.encode(seed, forKey: .seed)
        if let m = model {
            var t = c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            try t.encode(m.channelNames, forKey: .channelNames)
            try t.encode(m.length, forKey: .length)
            try t.encode(m.dilations, forKey: .dilations)
            try t.encode(m.featuresPerDilation, forKey: .featuresPerDilation)
            try t.encode(m.channelCounts, forKey: .channelCounts)
            try t.encode(m.channelIndices, forKey: .channelIndices)
            try t.encode(m.padded, forKey: .padded)
            try t.encode(PackedFloats(m.biases), forKey: .biases)
        }
    }

    public func validate() throws {
        if requestedFeatures < MiniRocket.kernelCount {
            throw GestureKitError("must be at least \(MiniRocket.kernelCount), got \(requestedFeatures)", field: "features")
        }
        if maxDilations < 1 { throw GestureKitError("must be at least 1, got \(maxDilations)", field: "maxDilations") }
        guard let m = model else { return }
        let channels = m.channelNames.count
        if channels < 1 { throw GestureKitError("no channels", field: "trained.channelNames") }
        if m.length < 1 { throw GestureKitError("must be at least 1", field: "trained.length") }
        if m.dilations.isEmpty || m.dilations.contains(where: { $0 < 1 || $0 > 1 << 20 }) {
            throw GestureKitError("dilations must be between 1 and 2^20", field: "trained.dilations")
        }
        if m.featuresPerDilation.count != m.dilations.count || m.featuresPerDilation.contains(where: { $0 < 1 || $0 > 1 << 20 }) {
            throw GestureKitError("expected \(m.dilations.count) positive counts", field: "trained.featuresPerDilation")
        }
        let combinations = MiniRocket.kernelCount * m.dilations.count
        if m.channelCounts.count != combinations || m.channelCounts.contains(where: { $0 < 1 || Int($0) > channels }) {
            throw GestureKitError("expected \(combinations) counts between 1 and \(channels)", field: "trained.channelCounts")
        }
        if m.channelIndices.count != m.channelCounts.reduce(0, { $0 + Int($1) })
            || m.channelIndices.contains(where: { $0 < 0 || Int($0) >= channels }) {
            throw GestureKitError("expected \(m.channelCounts.reduce(0, { $0 + Int($1) })) channel indices below \(channels)",
                                  field: "trained.channelIndices")
        }
        if m.padded.count != combinations || m.padded.contains(where: { $0 > 1 }) {
            throw GestureKitError("expected \(combinations) flags of 0 or 1", field: "trained.padded")
        }
        let total = MiniRocket.kernelCount * m.featuresPerDilation.reduce(0, { $0 + Int($1) })
        try PackedFloats(m.biases).check("trained.biases", count: total)
    }
}
