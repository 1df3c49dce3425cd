import CGestureKernels
import Foundation

extension LSTMClassifier {
    /// Trains without groups (the validation part is a stratified random split).
    public mutating func train(_ examples: [TimeSeries], labels: [Int], classes: [String]) throws {
        try train(examples, labels: labels, classes: classes, context: TrainingContext())
    }

    /// Trains the network from scratch.
    ///
    /// When `context.groups` names any group, the validation part is made of whole groups, so early
    /// stopping sees unseen sessions or users. Each epoch is reported to `context.progress`.
    /// - Complexity: O(epochs * frames * 4H * (in + H)); BLAS runs on one thread meanwhile (faster
    ///   for these small matrices). Scratch memory is lent by `LSTMWorkspacePool` and returned after.
    public mutating func train(_ examples: [TimeSeries], labels: [Int], classes: [String], context: TrainingContext) throws {
        let groups = context.groups.isEmpty ? [String?](repeating: nil, count: examples.count) : context.groups
        try Linalg.singleThreaded {
            try trainNetwork(examples, labels: labels, classes: classes, groups: groups, progress: context.progress,
                             context: context)
        }
    }

    private mutating func trainNetwork(_ examples: [TimeSeries], labels: [Int], classes: [String], groups: [String?],
                                       progress: (@Sendable (TrainingProgress) -> Void)?,
                                       context: TrainingContext = TrainingContext()) throws {
        try checkConfiguration()
        guard !examples.isEmpty else { throw GestureKitError("no training examples", field: "examples") }
        guard labels.count == examples.count, groups.count == examples.count else {
            throw GestureKitError("\(examples.count) examples but \(labels.count) labels and \(groups.count) groups", field: "labels")
        }
        guard classes.count >= 2 else { throw GestureKitError("need at least 2 classes, got \(classes.count)", field: "classes") }
        let c = examples[0].channelCount
        for (i, e) in examples.enumerated() {
            guard e.channelCount == c else {
                throw GestureKitError("example \(i) has \(e.channelCount) channels, example 0 has \(c)", field: "examples")
            }
            guard e.frameCount > 0 else { throw GestureKitError("example \(i) is empty", field: "examples") }
            guard e.isFinite else { throw GestureKitError("example \(i) has a value that is not finite", field: "examples") }
            guard classes.indices.contains(labels[i]) else {
                throw GestureKitError("example \(i) has label \(labels[i]), outside 0..<\(classes.count)", field: "labels")
            }
        }
        self.classes = classes
        channelCount = c

        let (trainIdx, validIdx) = validationSplit(labels: labels, groups: groups)
        fitNormalisation(trainIdx.map { examples[$0] })

        // Normalised, padded series in one pool so batches can point into it.
        let shape = self.shape
        var pool: [Float] = []
        var offsets: [Int] = [], frames: [Int] = []
        for e in examples {
            let pad = max(0, shape.minimumFrames - e.frameCount)
            offsets.append(pool.count)
            frames.append(e.frameCount + pad)
            pool.append(contentsOf: repeatElement(0, count: pad * c))
            for f in 0..<e.frameCount {
                for j in 0..<c { pool.append((e.values[f * c + j] - inputMean[j]) / inputStd[j]) }
            }
        }

        // Balanced class weights from the training part.
        var counts = [Int](repeating: 0, count: classes.count)
        for i in trainIdx { counts[labels[i]] += 1 }
        let classWeight: [Float] = counts.map { n in
            guard balanceClasses, n > 0 else { return 1 }
            return Float(trainIdx.count) / Float(classes.count * n)
        }

        let layout = shape.layout
        var theta = LSTMLayout.initialParameters(shape, seed: seed)
        var grad = [Float](repeating: 0, count: layout.count)
        var adam = AdamW(count: layout.count)
        var rng = SeededGenerator(seed: seed &+ 0x5EED)
        let workspace = LSTMWorkspacePool.shared.borrow(layers: layers)
        defer { LSTMWorkspacePool.shared.giveBack(workspace) }
        var best = theta
        var bestLoss = Double.infinity
        var bestAt = 0
        var sinceBest = 0
        var order = trainIdx
        var run = 0
        let decayMask = Self.decayMask(layout)

        try pool.withUnsafeBufferPointer { poolP in
            func items(_ idx: ArraySlice<Int>) -> [LSTMBatchItem] {
                idx.map { i in
                    LSTMBatchItem(values: poolP.baseAddress! + offsets[i], frames: frames[i], label: labels[i],
                                  weight: classWeight[labels[i]])
                }
            }
            for epoch in 0..<epochs {
                try context.checkCancellation()
                let started = Date()
                let lr = learningRate(epoch: epoch)
                order.shuffle(using: &rng)
                var lossSum = 0.0, correct = 0
                var at = 0
                while at < order.count {
                    let batch = items(order[at..<min(at + batchSize, order.count)])
                    at += batchSize
                    let r = theta.withUnsafeBufferPointer { t in
                        grad.withUnsafeMutableBufferPointer { g in
                            LSTMNetwork.run(shape, theta: t.baseAddress!, batch: batch, gradient: g.baseAddress!,
                                            dropout: dropout, rng: &rng, workspace: workspace)
                        }
                    }
                    lossSum += r.loss * Double(batch.count)
                    correct += r.correct
                    if clip > 0 { Self.clipGlobalNorm(&grad, to: clip) }
                    adam.step(&theta, gradient: grad, learningRate: lr, weightDecay: weightDecay, decayMask: decayMask)
                }
                run = epoch + 1
                var report = LSTMEpochReport(epoch: epoch + 1, loss: lossSum / Double(order.count),
                                             accuracy: Double(correct) / Double(order.count),
                                             validationLoss: nil, validationAccuracy: nil, learningRate: lr, seconds: 0)
                var stop = false
                if !validIdx.isEmpty {
                    var vLoss = 0.0, vTotalWeight = 0.0, vCorrect = 0
                    var vAt = 0
                    while vAt < validIdx.count {
                        let batch = items(validIdx[vAt..<min(vAt + 64, validIdx.count)])
                        vAt += 64
                        let r = theta.withUnsafeBufferPointer { t in
                            LSTMNetwork.run(shape, theta: t.baseAddress!, batch: batch, gradient: nil, dropout: 0,
                                            rng: &rng, workspace: workspace)
                        }
                        let w = batch.reduce(0.0) { $0 + Double($1.weight) }
                        vLoss += r.loss * w
                        vTotalWeight += w
                        vCorrect += r.correct
                    }
                    vLoss /= vTotalWeight
                    report.validationLoss = vLoss
                    report.validationAccuracy = Double(vCorrect) / Double(validIdx.count)
                    if vLoss < bestLoss - 1e-6 {
                        bestLoss = vLoss
                        best = theta
                        bestAt = epoch + 1
                        sinceBest = 0
                    } else {
                        sinceBest += 1
                        stop = sinceBest >= patience
                    }
                }
                report.seconds = Date().timeIntervalSince(started)
                progress?(.epoch(report))
                if stop || !theta.allSatisfy(\.isFinite) { break }
            }
        }
        if validIdx.isEmpty || bestAt == 0 {
            best = theta
            bestAt = run
        }
        guard best.allSatisfy(\.isFinite) else {
            throw GestureKitError("training diverged (non-finite weights); lower learningRate or set clip", field: "learningRate")
        }
        parameters = best
        epochsRun = run
        bestEpoch = bestAt
    }

    func learningRate(epoch: Int) -> Float {
        switch schedule {
        case .constant: return learningRate
        case .cosine:
            let progress = epochs > 1 ? Float(epoch) / Float(epochs - 1) : 0
            return learningRate * (0.05 + 0.95 * 0.5 * (1 + Foundation.cos(Float.pi * progress)))
        }
    }

    /// Throws naming the first configuration field that is out of range.
    func checkConfiguration() throws {
        guard hidden >= 1 else { throw GestureKitError("must be at least 1, got \(hidden)", field: "hidden") }
        guard layers == 1 || layers == 2 else { throw GestureKitError("must be 1 or 2, got \(layers)", field: "layers") }
        guard epochs >= 1 else { throw GestureKitError("must be at least 1, got \(epochs)", field: "epochs") }
        guard batchSize >= 1 else { throw GestureKitError("must be at least 1, got \(batchSize)", field: "batch") }
        guard learningRate > 0, learningRate.isFinite else { throw GestureKitError("must be positive", field: "learningRate") }
        guard dropout >= 0, dropout < 1 else { throw GestureKitError("must be in [0, 1), got \(dropout)", field: "dropout") }
        guard weightDecay >= 0, weightDecay.isFinite else { throw GestureKitError("must be >= 0", field: "weightDecay") }
        guard clip >= 0, clip.isFinite else { throw GestureKitError("must be >= 0", field: "clip") }
        guard validationFraction >= 0, validationFraction < 1 else {
            throw GestureKitError("must be in [0, 1), got \(validationFraction)", field: "validationFraction")
        }
        guard patience >= 1 else { throw GestureKitError("must be at least 1, got \(patience)", field: "patience") }
        if let cv = convolution {
            guard cv.filters >= 1, cv.width >= 1, cv.stride >= 1 else {
                throw GestureKitError("filters, width and stride must be at least 1", field: "convolution")
            }
        }
    }

    /// Below this many held-out examples the validation loss is too noisy to stop on (measured on
    /// BasicMotions and RacketSports, where 8 to 30 held-out series stopped training far too early):
    /// then no validation part is held out and all `epochs` run.
    public static let minimumValidationExamples = 40

    /// Training and validation indices. Grouped: whole groups (seeded order) until the fraction is
    /// reached; otherwise stratified per class. No validation part when it would hold fewer than
    /// ``minimumValidationExamples``.
    func validationSplit(labels: [Int], groups: [String?]) -> (train: [Int], valid: [Int]) {
        let n = labels.count
        guard validationFraction > 0, Double(n) * validationFraction >= Double(Self.minimumValidationExamples) else {
            return (Array(0..<n), [])
        }
        var rng = SeededGenerator(seed: seed &+ 0xFA11)
        var valid: [Int] = []
        if groups.contains(where: { $0 != nil }) {
            var members: [String: [Int]] = [:]
            for i in 0..<n { members[groups[i] ?? "example \(i)", default: []].append(i) }
            let keys = members.keys.sorted().shuffled(using: &rng)
            let target = Int((Double(n) * validationFraction).rounded())
            for k in keys where valid.count < target && members.count > 1 {
                if valid.count + members[k]!.count > n - 1 { continue }
                valid += members[k]!
            }
        } else {
            var byClass: [Int: [Int]] = [:]
            for i in 0..<n { byClass[labels[i], default: []].append(i) }
            for k in byClass.keys.sorted() {
                let m = byClass[k]!.shuffled(using: &rng)
                let take = m.count < 3 ? 0 : max(1, Int((Double(m.count) * validationFraction).rounded()))
                valid += m.prefix(take)
            }
        }
        let v = Set(valid)
        return ((0..<n).filter { !v.contains($0) }, valid.sorted())
    }

    mutating func fitNormalisation(_ series: [TimeSeries]) {
        var sum = [Double](repeating: 0, count: channelCount), sq = sum
        var n = 0.0
        for s in series {
            for f in 0..<s.frameCount {
                for j in 0..<channelCount {
                    let v = Double(s.values[f * channelCount + j])
                    sum[j] += v
                    sq[j] += v * v
                }
            }
            n += Double(s.frameCount)
        }
        inputMean = sum.map { Float($0 / max(n, 1)) }
        inputStd = (0..<channelCount).map { j in
            let m = sum[j] / max(n, 1)
            let sd = max(sq[j] / max(n, 1) - m * m, 0).squareRoot()
            return sd > 1e-6 ? Float(sd) : 1
        }
    }

    static func decayMask(_ layout: LSTMLayout) -> [Float] {
        var m = [Float](repeating: 0, count: layout.count)
        for r in layout.decayed { for i in r { m[i] = 1 } }
        return m
    }

    static func clipGlobalNorm(_ g: inout [Float], to limit: Float) {
        var sq: Double = 0
        for v in g { sq += Double(v) * Double(v) }
        let norm = Float(sq.squareRoot())
        guard norm > limit else { return }
        let scale = limit / norm
        for i in g.indices { g[i] *= scale }
    }
}

/// Adam with decoupled weight decay (Loshchilov & Hutter): the decay shrinks weights directly
/// instead of entering the moment estimates.
struct AdamW {
    var m: [Float], v: [Float]
    var t = 0
    var beta1: Float = 0.9, beta2: Float = 0.999, epsilon: Float = 1e-8

    init(count: Int) {
        m = [Float](repeating: 0, count: count)
        v = m
    }

    mutating func step(_ theta: inout [Float], gradient g: [Float], learningRate lr: Float, weightDecay: Float,
                       decayMask: [Float]) {
        t += 1
        let c1 = 1 - Foundation.pow(beta1, Float(t)), c2 = 1 - Foundation.pow(beta2, Float(t))
        let stepSize = lr / c1
        let decay = lr * weightDecay
        let n = theta.count
        // Vectorised in C (Swift builds for baseline SSE2).
        theta.withUnsafeMutableBufferPointer { th in
            m.withUnsafeMutableBufferPointer { mm in
                v.withUnsafeMutableBufferPointer { vv in
                    g.withUnsafeBufferPointer { gg in
                        decayMask.withUnsafeBufferPointer { dm in
                            gk_adamw(th.baseAddress!, mm.baseAddress!, vv.baseAddress!, gg.baseAddress!, dm.baseAddress!, n,
                                     beta1, beta2, epsilon, stepSize, c2.squareRoot(), decay)
                        }
                    }
                }
            }
        }
    }
}
