/// JSON form: see ``RidgeClassifier``.
extension RidgeClassifier {
    enum CodingKeys: String, CodingKey { case alphas, selection, folds, trained }

    enum TrainedKeys: String, CodingKey {
        case classes, dimensions, means, scales, weights, intercepts, alpha, temperature, chosenBy
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(alphas: try c.decodeIfPresent([Double].self, forKey: .alphas) ?? RidgeClassifier.defaultAlphas,
                  selection: try c.decodeIfPresent(AlphaSelection.self, forKey: .selection) ?? .auto,
                  folds: try c.decodeIfPresent(Int.self, forKey: .folds) ?? 5)
        if c.contains(.trained) {
            let t = try c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            model = Model(classes: try t.decode([String].self, forKey: .classes),
                          dimensions: try t.decode(Int.self, forKey: .dimensions),
                          means: try t.decode(PackedFloats.self, forKey: .means).values,
                          scales: try t.decode(PackedFloats.self, forKey: .scales).values,
                          weights: try t.decode(PackedFloats.self, forKey: .weights).values,
                          intercepts: try t.decode(PackedFloats.self, forKey: .intercepts).values,
                          alpha: try t.decode(Double.self, forKey: .alpha),
                          temperature: try t.decode(Float.self, forKey: .temperature),
                          // Files from before group folds chose by leave-one-out.
                          chosenBy: try t.decodeIfPresent(String.self, forKey: .chosenBy) ?? "leave-one-out")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(alphas, forKey: .alphas)
        try c.encode(selection, forKey: .selection)
        try c.encode(folds, forKey: .folds)
        if let m = model {
            var t = c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            try t.encode(m.classes, forKey: .classes)
            try t.encode(m.dimensions, forKey: .dimensions)
            try t.encode(PackedFloats(m.means), forKey: .means)
            try t.encode(PackedFloats(m.scales), forKey: .scales)
            try t.encode(PackedFloats(m.weights), forKey: .weights)
            try t.encode(PackedFloats(m.intercepts), forKey: .intercepts)
            try t.encode(m.alpha, forKey: .alpha)
            try t.encode(m.temperature, forKey: .temperature)
            try t.encode(m.chosenBy, forKey: .chosenBy)
        }
    }

    public func validate() throws {
        if alphas.isEmpty || alphas.contains(where: { !($0 > 0) || !$0.isFinite }) {
            throw GestureKitError("give at least one positive, finite alpha", field: "alphas")
        }
        if folds < 2 { throw GestureKitError("must be at least 2", field: "folds") }
        guard let m = model else { return }
        guard m.dimensions > 0 else { throw GestureKitError("must be positive", field: "trained.dimensions") }
        guard !m.classes.isEmpty else { throw GestureKitError("no classes", field: "trained.classes") }
        try PackedFloats(m.means).check("trained.means", count: m.dimensions)
        try PackedFloats(m.scales).check("trained.scales", count: m.dimensions)
        if m.scales.contains(where: { !($0 > 0) }) { throw GestureKitError("scales must be positive", field: "trained.scales") }
        try PackedFloats(m.weights).check("trained.weights", count: m.dimensions * m.classes.count)
        try PackedFloats(m.intercepts).check("trained.intercepts", count: m.classes.count)
        if !(m.alpha > 0) || !m.alpha.isFinite { throw GestureKitError("must be positive", field: "trained.alpha") }
        if !(m.temperature > 0) || !m.temperature.isFinite { throw GestureKitError("must be positive", field: "trained.temperature") }
    }
}
