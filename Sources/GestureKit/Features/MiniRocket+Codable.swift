/// JSON form: see ``MiniRocket``.
extension MiniRocket {
    enum CodingKeys: String, CodingKey { case features, maxDilations, seed, difference, multiPooling, concatenate, trained }

    enum TrainedKeys: String, CodingKey {
        case channelNames, length, dilations, featuresPerDilation, channelCounts, channelIndices, padded, biases, difference
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(features: try c.decodeIfPresent(Int.self, forKey: .features) ?? 10_000,
                  maxDilations: try c.decodeIfPresent(Int.self, forKey: .maxDilations) ?? 32,
                  seed: try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 0,
                  difference: try c.decodeIfPresent(Bool.self, forKey: .difference) ?? false,
                  multiPooling: try c.decodeIfPresent(Bool.self, forKey: .multiPooling) ?? false,
                  concatenate: try c.decodeIfPresent(Bool.self, forKey: .concatenate) ?? false)
        if c.contains(.trained) {
            let t = try c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            model = try Self.decodeModel(t)
            model?.concatenated = concatenate
            if difference {
                let dt = try t.nestedContainer(keyedBy: TrainedKeys.self, forKey: .difference)
                differenceModel = try Self.decodeModel(dt, channelNames: model?.channelNames)
                differenceModel?.concatenated = concatenate
            }
        }
    }

    /// One fitted transform; `channelNames` given (the difference half shares the series' names).
    static func decodeModel(_ t: KeyedDecodingContainer<TrainedKeys>, channelNames: [String]? = nil) throws -> Model {
        Model(channelNames: try channelNames ?? t.decode([String].self, forKey: .channelNames),
              length: try t.decode(Int.self, forKey: .length),
              dilations: try t.decode([Int32].self, forKey: .dilations),
              featuresPerDilation: try t.decode([Int32].self, forKey: .featuresPerDilation),
              channelCounts: try t.decode([Int32].self, forKey: .channelCounts),
              channelIndices: try t.decode([Int32].self, forKey: .channelIndices),
              padded: try t.decode([UInt8].self, forKey: .padded),
              biases: try t.decode(PackedFloats.self, forKey: .biases).values)
    }

    static func encodeModel(_ m: Model, _ t: inout KeyedEncodingContainer<TrainedKeys>, names: Bool) throws {
        if names { try t.encode(m.channelNames, forKey: .channelNames) }
        try t.encode(m.length, forKey: .length)
        try t.encode(m.dilations, forKey: .dilations)
        try t.encode(m.featuresPerDilation, forKey: .featuresPerDilation)
        try t.encode(m.channelCounts, forKey: .channelCounts)
        try t.encode(m.channelIndices, forKey: .channelIndices)
        try t.encode(m.padded, forKey: .padded)
        try t.encode(PackedFloats(m.biases), forKey: .biases)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(requestedFeatures, forKey: .features)
        try c.encode(maxDilations, forKey: .maxDilations)
        try c.encode(seed, forKey: .seed)
        if difference { try c.encode(true, forKey: .difference) }
        if multiPooling { try c.encode(true, forKey: .multiPooling) }
        if concatenate { try c.encode(true, forKey: .concatenate) }
        if let m = model {
            var t = c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            try Self.encodeModel(m, &t, names: true)
            if let dm = differenceModel {
                var dt = t.nestedContainer(keyedBy: TrainedKeys.self, forKey: .difference)
                try Self.encodeModel(dm, &dt, names: false)
            }
        }
    }

    public func validate() throws {
        if requestedFeatures < MiniRocket.kernelCount {
            throw GestureKitError("must be at least \(MiniRocket.kernelCount), got \(requestedFeatures)", field: "features")
        }
        if maxDilations < 1 { throw GestureKitError("must be at least 1, got \(maxDilations)", field: "maxDilations") }
        guard let m = model else { return }
        try Self.validate(m, field: "trained")
        if difference {
            guard let dm = differenceModel else { throw GestureKitError("missing", field: "trained.difference") }
            try Self.validate(dm, field: "trained.difference")
        } else if differenceModel != nil {
            throw GestureKitError("a difference half without \"difference\": true", field: "trained.difference")
        }
    }

    static func validate(_ m: Model, field: String) throws {
        let channels = m.inputChannels
        if m.channelNames.isEmpty { throw GestureKitError("no channels", field: field + ".channelNames") }
        if m.length < 1 { throw GestureKitError("must be at least 1", field: field + ".length") }
        if m.dilations.isEmpty || m.dilations.contains(where: { $0 < 1 || $0 > 1 << 20 }) {
            throw GestureKitError("dilations must be between 1 and 2^20", field: field + ".dilations")
        }
        if m.featuresPerDilation.count != m.dilations.count || m.featuresPerDilation.contains(where: { $0 < 1 || $0 > 1 << 20 }) {
            throw GestureKitError("expected \(m.dilations.count) positive counts", field: field + ".featuresPerDilation")
        }
        let combinations = MiniRocket.kernelCount * m.dilations.count
        if m.channelCounts.count != combinations || m.channelCounts.contains(where: { $0 < 1 || Int($0) > channels }) {
            throw GestureKitError("expected \(combinations) counts between 1 and \(channels)", field: field + ".channelCounts")
        }
        if m.channelIndices.count != m.channelCounts.reduce(0, { $0 + Int($1) })
            || m.channelIndices.contains(where: { $0 < 0 || Int($0) >= channels }) {
            throw GestureKitError("expected \(m.channelCounts.reduce(0, { $0 + Int($1) })) channel indices below \(channels)",
                                  field: field + ".channelIndices")
        }
        if m.padded.count != combinations || m.padded.contains(where: { $0 > 1 }) {
            throw GestureKitError("expected \(combinations) flags of 0 or 1", field: field + ".padded")
        }
        let total = MiniRocket.kernelCount * m.featuresPerDilation.reduce(0, { $0 + Int($1) })
        try PackedFloats(m.biases).check(field + ".biases", count: total)
    }
}
