import Foundation
import Testing
@testable import GestureKit

/// Synthetic, clearly separable series: class k is a sinusoid of frequency k + 1 on channel 0 and its
/// phase-shifted copy on channel 1, plus noise, with random lengths.
func lstmToyData(count: Int, classes: Int = 3, seed: UInt64, lengths: ClosedRange<Int> = 18...30)
    -> (series: [TimeSeries], labels: [Int]) {
    var rng = SeededGenerator(seed: seed)
    var series: [TimeSeries] = [], labels: [Int] = []
    for i in 0..<count {
        let k = i % classes
        let n = lengths.lowerBound + Int(rng.next() % UInt64(lengths.count))
        let phase = rng.nextUnit() * 6.28
        var frames: [[Float]] = []
        for t in 0..<n {
            let a = Float(k + 1) * 0.4 * Float(t) + phase
            frames.append([sin(a) + 0.1 * rng.nextGaussian(), cos(a) + 0.1 * rng.nextGaussian(), 5 + rng.nextGaussian()])
        }
        series.append(TimeSeries(frames: frames))
        labels.append(k)
    }
    return (series, labels)
}

@Suite struct LSTMClassifierTests {
    static let classes = ["slow", "medium", "fast"]

    static func trained(_ config: LSTMClassifier = LSTMClassifier(hidden: 16, epochs: 60)) throws -> LSTMClassifier {
        let (x, y) = lstmToyData(count: 60, seed: 1)
        var m = config
        try m.train(x, labels: y, classes: classes)
        return m
    }

    @Test func learnsASeparableProblem() throws {
        let m = try Self.trained()
        let (x, y) = lstmToyData(count: 60, seed: 2)
        let correct = zip(x, y).filter { m.predict($0).classIndex == $1 }.count
        #expect(Double(correct) / Double(x.count) >= 0.9)
        #expect(m.bestEpoch >= 1 && m.bestEpoch <= m.epochsRun)
    }

    @Test func handWrittenSpecDecodesWithDefaults() throws {
        let json = #"{"kind": "lstm", "hidden": 32, "epochs": 40, "convolution": {"filters": 8}}"#
        let m = try JSONDecoder().decode(LSTMClassifier.self, from: Data(json.utf8))
        let d = LSTMClassifier()
        #expect(m.hidden == 32 && m.epochs == 40)
        #expect(m.convolution == LSTMClassifier.Convolution(filters: 8, width: 4, stride: 2))
        #expect(m.layers == d.layers && m.batchSize == d.batchSize && m.learningRate == d.learningRate)
        #expect(m.dropout == d.dropout && m.weightDecay == d.weightDecay && m.clip == d.clip)
        #expect(m.validationFraction == d.validationFraction && m.patience == d.patience && m.seed == d.seed)
        #expect(!m.isTrained)
        try m.validate()
        // Absent: the default front end; null: none.
        let plain = try JSONDecoder().decode(LSTMClassifier.self, from: Data(#"{"kind": "lstm"}"#.utf8))
        #expect(plain.convolution == d.convolution && d.convolution == LSTMClassifier.Convolution(filters: 64, width: 4, stride: 2))
        let none = try JSONDecoder().decode(LSTMClassifier.self, from: Data(#"{"convolution": null}"#.utf8))
        #expect(none.convolution == nil)
        let again = try JSONDecoder().decode(LSTMClassifier.self, from: JSONEncoder().encode(none))
        #expect(again.convolution == nil)
        // An untrained spec encodes configuration only.
        let text = String(decoding: try JSONEncoder().encode(m), as: UTF8.self)
        #expect(!text.contains("lstmWeights"))
        #expect(throws: GestureKitError.self) {
            try JSONDecoder().decode(LSTMClassifier.self, from: Data(#"{"layers": 3}"#.utf8)).validate()
        }
    }

    @Test(arguments: [false, true])
    func saveLoadGivesBitIdenticalOutputs(convolution: Bool) throws {
        let m = try Self.trained(LSTMClassifier(hidden: 8, layers: 2, epochs: 3,
                                                convolution: convolution ? .init(filters: 4, width: 3, stride: 2) : nil))
        let data = try JSONEncoder().encode(m)
        let back = try JSONDecoder().decode(LSTMClassifier.self, from: data)
        try back.validate()
        #expect(back.classes == m.classes && back.parameters.count == m.parameterCount)
        let (x, _) = lstmToyData(count: 6, seed: 3)
        for s in x {
            let a = m.predict(s), b = back.predict(s)
            #expect(a.scores.map(\.bitPattern) == b.scores.map(\.bitPattern))
        }
    }

    @Test func validateNamesBadFields() throws {
        let m = try Self.trained(LSTMClassifier(hidden: 4, epochs: 1))
        var obj = try JSONSerialization.jsonObject(with: JSONEncoder().encode(m)) as! [String: Any]
        // Wrong size.
        obj["headBias"] = PackedFloats([1, 2]).base64
        var e = #expect(throws: GestureKitError.self) {
            try JSONDecoder().decode(LSTMClassifier.self, from: JSONSerialization.data(withJSONObject: obj)).validate()
        }
        #expect(e?.field == "headBias")
        // Non-finite value.
        obj["headBias"] = PackedFloats([1, .nan, 3]).base64
        e = #expect(throws: GestureKitError.self) {
            try JSONDecoder().decode(LSTMClassifier.self, from: JSONSerialization.data(withJSONObject: obj)).validate()
        }
        #expect(e?.field == "headBias")
        // One layer's weights missing.
        obj["headBias"] = PackedFloats([1, 2, 3]).base64
        obj["lstmBias"] = [String]()
        e = #expect(throws: GestureKitError.self) {
            try JSONDecoder().decode(LSTMClassifier.self, from: JSONSerialization.data(withJSONObject: obj)).validate()
        }
        #expect(e?.field == "lstmBias")
    }

    @Test func trainingIsDeterministicForASeed() throws {
        let a = try Self.trained(LSTMClassifier(hidden: 8, epochs: 3, seed: 5))
        let b = try Self.trained(LSTMClassifier(hidden: 8, epochs: 3, seed: 5))
        let c = try Self.trained(LSTMClassifier(hidden: 8, epochs: 3, seed: 6))
        #expect(a.parameters == b.parameters)
        #expect(a.parameters != c.parameters)
    }

    /// The streaming path (GEMV per frame, ring buffer) and the batched training pass (GEMM over
    /// padded, masked batches) are separate code; both must give the same probabilities.
    @Test(arguments: [0, 1, 2])
    func streamingAndBatchedPassesAgree(convolutionStride: Int) throws {
        let m = try Self.trained(LSTMClassifier(hidden: 8, layers: 2, epochs: 2,
                                                convolution: convolutionStride > 0 ? .init(filters: 4, width: 3, stride: convolutionStride) : nil))
        let (x, y) = lstmToyData(count: 5, seed: 4, lengths: 2...30)
        let shape = m.shape
        var pool: [Float] = [], frames: [Int] = []
        for s in x {
            let pad = max(0, shape.minimumFrames - s.frameCount)
            frames.append(s.frameCount + pad)
            pool += [Float](repeating: 0, count: pad * 3)
            for f in 0..<s.frameCount { for j in 0..<3 { pool.append((s[f, j] - m.inputMean[j]) / m.inputStd[j]) } }
        }
        var rng = SeededGenerator(seed: 0)
        let ws = LSTMWorkspace(layers: 2)
        func loss(_ which: [Int]) -> Double {
            pool.withUnsafeBufferPointer { p in
                var offsets: [Int] = [], at = 0
                for n in frames { offsets.append(at); at += n * 3 }
                let batch = which.map { LSTMBatchItem(values: p.baseAddress! + offsets[$0], frames: frames[$0], label: y[$0], weight: 1) }
                return m.parameters.withUnsafeBufferPointer {
                    LSTMNetwork.run(shape, theta: $0.baseAddress!, batch: batch, gradient: nil, dropout: 0, rng: &rng, workspace: ws).loss
                }
            }
        }
        var single: [Double] = []
        for i in x.indices {
            let p = m.predict(x[i])
            single.append(loss([i]))
            #expect(abs(-log(Double(p.scores[y[i]])) - single[i]) < 1e-4)
        }
        // A padded batch of all five scores each series as if alone.
        #expect(abs(loss(Array(x.indices)) - single.reduce(0, +) / Double(x.count)) < 1e-5)
    }

    @Test func windowStreamEmitsEveryHopFromTheCompletedWindow() throws {
        let m = try Self.trained(LSTMClassifier(hidden: 8, epochs: 2, convolution: .init(filters: 4, width: 3, stride: 2)))
        let (x, _) = lstmToyData(count: 1, seed: 9, lengths: 60...60)
        let s = x[0]
        var ws = m.windowStream(window: 12, hop: 4)
        var emitted: [Int] = []
        s.values.withUnsafeBufferPointer { all in
            for f in 0..<s.frameCount {
                guard let p = ws.step(UnsafeBufferPointer(rebasing: all[(f * 3)..<((f + 1) * 3)])) else { continue }
                emitted.append(f)
                let alone = m.predict(s.frames((f - 11)..<(f + 1)))
                #expect(p.scores == alone.scores)
            }
        }
        #expect(emitted == Array(stride(from: 11, to: 60, by: 4)))
    }

    @Test func streamResetStartsOver() throws {
        let m = try Self.trained(LSTMClassifier(hidden: 8, epochs: 2))
        let (x, _) = lstmToyData(count: 2, seed: 8)
        var st = m.stream()
        for f in 0..<x[0].frameCount { _ = st.step(Array(x[0].frame(f))) }
        st.reset()
        var last = st.current
        for f in 0..<x[1].frameCount { last = st.step(Array(x[1].frame(f))) }
        #expect(last.scores == m.predict(x[1]).scores)
    }

    @Test func badTrainingInputThrows() {
        let (x, y) = lstmToyData(count: 12, seed: 1)
        var m = LSTMClassifier(hidden: 4, epochs: 1)
        #expect(throws: GestureKitError.self) { try m.train(x, labels: y.map { $0 + 5 }, classes: Self.classes) }
        #expect(throws: GestureKitError.self) { try m.train(x, labels: Array(y.dropLast()), classes: Self.classes) }
        var bad = x
        bad[3].values[0] = .nan
        #expect(throws: GestureKitError.self) { try m.train(bad, labels: y, classes: Self.classes) }
        m.layers = 3
        #expect(throws: GestureKitError.self) { try m.train(x, labels: y, classes: Self.classes) }
    }

    @Test func groupedValidationKeepsGroupsTogether() {
        let m = LSTMClassifier(validationFraction: 0.3)
        let groups: [String?] = (0..<200).map { "user\($0 / 5)" }
        let (train, valid) = m.validationSplit(labels: (0..<200).map { $0 % 2 }, groups: groups)
        #expect(valid.count >= 55 && valid.count <= 65 && train.count + valid.count == 200)
        #expect(Set(train.map { groups[$0]! }).isDisjoint(with: valid.map { groups[$0]! }))
        // Too few to hold out a useful validation part: none.
        #expect(m.validationSplit(labels: (0..<100).map { $0 % 2 }, groups: groups.prefix(100).map { $0 }).valid.isEmpty)
    }

    @Test func progressReportsEachEpoch() throws {
        let seen = Locked<[LSTMEpochReport]>([])
        var m = LSTMClassifier(hidden: 4, epochs: 3, patience: 10)
        let (x, y) = lstmToyData(count: 200, seed: 1, lengths: 5...8)
        try m.train(x, labels: y, classes: Self.classes, context: TrainingContext(progress: { p in
            if case .epoch(let r) = p { seen.withLock { $0.append(r) } }
        }))
        let reports = seen.withLock { $0 }
        #expect(reports.map(\.epoch) == [1, 2, 3])
        #expect(reports.allSatisfy { $0.validationLoss != nil && $0.loss.isFinite && $0.seconds >= 0 })
    }
}

extension PackedFloats {
    /// The JSON string this encodes to.
    var base64: String {
        let data = try! JSONEncoder().encode(self)
        return try! JSONDecoder().decode(String.self, from: data)
    }
}

