import Testing
@testable import GestureKit

/// Central finite differences against the analytic gradient of the batched LSTM pass.
///
/// Precision: the network computes in Float (the loss is accumulated in Double). Step `h = 3e-3`;
/// a component passes when |analytic - numeric| <= 1e-4 + 5e-3 * max(|analytic|, |numeric|).
/// Float rounding in the loss difference is about 1e-7 / h ~ 3e-5 and the truncation error
/// O(h^2 * f''') is smaller still (the check also passes at 2e-5 + 1e-3), so the tolerance leaves a wide margin for honest gradients, while
/// a wrong formula is off by the order of the gradient itself (checked below on purpose).
enum GradientChecker {
    struct Mismatch: CustomStringConvertible {
        var index: Int, analytic: Float, numeric: Float
        var description: String { "[\(index)] analytic \(analytic) numeric \(numeric)" }
    }

    static let step: Float = 3e-3
    static let absoluteTolerance: Float = 1e-4
    static let relativeTolerance: Float = 5e-3

    /// The components of `analytic` at `indices` that disagree with central differences of `f`.
    static func mismatches(_ f: ([Float]) -> Double, at x: [Float], analytic: [Float],
                           indices: some Sequence<Int>) -> [Mismatch] {
        var out: [Mismatch] = []
        var xp = x
        for i in indices {
            xp[i] = x[i] + step
            let fPlus = f(xp)
            xp[i] = x[i] - step
            let fMinus = f(xp)
            xp[i] = x[i]
            let numeric = Float((fPlus - fMinus) / Double(2 * step))
            let a = analytic[i]
            if abs(a - numeric) > absoluteTolerance + relativeTolerance * max(abs(a), abs(numeric)) {
                out.append(Mismatch(index: i, analytic: a, numeric: numeric))
            }
        }
        return out
    }
}

@Suite struct LSTMGradientTests {
    @Test func checkerAcceptsTrueGradientAndRejectsWrongOne() {
        // f(x) = sum x^3 + x0 * x1, gradient 3x^2 (+ x1, + x0).
        let x: [Float] = [0.3, -0.7, 1.1, 0.05]
        let f: ([Float]) -> Double = { v in v.reduce(0.0) { $0 + Double($1 * $1 * $1) } + Double(v[0] * v[1]) }
        var right = x.map { 3 * $0 * $0 }
        right[0] += x[1]
        right[1] += x[0]
        #expect(GradientChecker.mismatches(f, at: x, analytic: right, indices: x.indices).isEmpty)
        // Forgetting the cross term, or a 10% error in one component, must be caught.
        let forgot = x.map { 3 * $0 * $0 }
        #expect(GradientChecker.mismatches(f, at: x, analytic: forgot, indices: x.indices).map(\.index) == [0, 1])
        var scaled = right
        scaled[2] *= 1.1
        #expect(GradientChecker.mismatches(f, at: x, analytic: scaled, indices: x.indices).map(\.index) == [2])
    }

    /// A tiny two-layer network with a convolution front end, three series of different lengths
    /// (masking), unequal class weights and dropout with masks fixed by the seed.
    static func tinyProblem() -> (LSTMShape, [[Float]], [Int], [Float]) {
        let shape = LSTMShape(channels: 2, convolution: .init(filters: 3, width: 3, stride: 2), hidden: 4,
                              layers: 2, classes: 3)
        var rng = SeededGenerator(seed: 7)
        let lengths = [9, 7, 12]
        let series = lengths.map { n in (0..<(n * 2)).map { _ in rng.nextGaussian() } }
        return (shape, series, [0, 2, 1], [1.0, 2.0, 0.5])
    }

    static func lossAndGradient(_ shape: LSTMShape, _ theta: [Float], _ series: [[Float]], _ labels: [Int],
                                _ weights: [Float], dropout: Float, wantGradient: Bool,
                                workspace: LSTMWorkspace? = nil) -> (Double, [Float]) {
        let pool = series.flatMap { $0 }
        var grad = [Float](repeating: 0, count: theta.count)
        let ws = workspace ?? LSTMWorkspace(layers: shape.layers)
        var rng = SeededGenerator(seed: 99)
        let loss = pool.withUnsafeBufferPointer { p in
            var at = 0
            var batch: [LSTMBatchItem] = []
            for (i, s) in series.enumerated() {
                batch.append(LSTMBatchItem(values: p.baseAddress! + at, frames: s.count / shape.channels,
                                           label: labels[i], weight: weights[i]))
                at += s.count
            }
            return theta.withUnsafeBufferPointer { t in
                grad.withUnsafeMutableBufferPointer { g in
                    LSTMNetwork.run(shape, theta: t.baseAddress!, batch: batch, gradient: wantGradient ? g.baseAddress! : nil,
                                    dropout: dropout, rng: &rng, workspace: ws).loss
                }
            }
        }
        return (loss, grad)
    }

    @Test(arguments: [Float(0), 0.3])
    func everyParameterMatchesFiniteDifferences(dropout: Float) {
        let (shape, series, labels, weights) = Self.tinyProblem()
        var theta = LSTMLayout.initialParameters(shape, seed: 3)
        // Larger weights than the initialisation so that every gate is away from its linear regime.
        theta = theta.map { $0 * 2 }
        let (_, analytic) = Self.lossAndGradient(shape, theta, series, labels, weights, dropout: dropout, wantGradient: true)
        let f: ([Float]) -> Double = { Self.lossAndGradient(shape, $0, series, labels, weights, dropout: dropout, wantGradient: false).0 }
        let layout = shape.layout
        // Every tensor is covered and has a gradient that is not trivially zero.
        for r in [layout.convWeights, layout.convBias, layout.headWeights, layout.headBias] + layout.lstmWeights + layout.lstmBias {
            #expect(!r.isEmpty)
            #expect(analytic[r].contains { abs($0) > 1e-4 }, "tensor at \(r) has an all-zero gradient")
        }
        let bad = GradientChecker.mismatches(f, at: theta, analytic: analytic, indices: theta.indices)
        #expect(bad.isEmpty, "\(bad.count) of \(theta.count) components differ, e.g. \(bad.prefix(5))")
    }

    /// Training borrows workspaces that earlier runs filled (``LSTMWorkspacePool``): no result may
    /// depend on what a workspace held.
    @Test(arguments: [Float(0), 0.3])
    func resultsDoNotDependOnWorkspaceContents(dropout: Float) {
        let (shape, series, labels, weights) = Self.tinyProblem()
        let theta = LSTMLayout.initialParameters(shape, seed: 3)
        let fresh = Self.lossAndGradient(shape, theta, series, labels, weights, dropout: dropout, wantGradient: true)
        // Grow every buffer past this problem's needs (series twice as long), then poison it.
        let used = LSTMWorkspace(layers: shape.layers)
        _ = Self.lossAndGradient(shape, theta, series.map { $0 + $0 }, labels, weights, dropout: dropout,
                                 wantGradient: true, workspace: used)
        for s in used.floatScratches { s.pointer.update(repeating: .nan, count: s.capacity) }
        used.starts.pointer.update(repeating: 1 << 40, count: used.starts.capacity)
        let again = Self.lossAndGradient(shape, theta, series, labels, weights, dropout: dropout, wantGradient: true,
                                         workspace: used)
        #expect(again.0 == fresh.0)
        #expect(again.1 == fresh.1)
    }

    @Test func checkCatchesAWrongNetworkGradient() {
        let (shape, series, labels, weights) = Self.tinyProblem()
        let theta = LSTMLayout.initialParameters(shape, seed: 3).map { $0 * 2 }
        var (_, analytic) = Self.lossAndGradient(shape, theta, series, labels, weights, dropout: 0, wantGradient: true)
        // Drop the recurrent part of layer 0's weight gradient, as a BPTT bug that forgets h would.
        let layout = shape.layout
        let G = 4 * shape.hidden, I = shape.layerInput(0)
        let hPart = (layout.lstmWeights[0].lowerBound + I * G)..<layout.lstmWeights[0].upperBound
        for i in hPart { analytic[i] = 0 }
        let f: ([Float]) -> Double = { Self.lossAndGradient(shape, $0, series, labels, weights, dropout: 0, wantGradient: false).0 }
        let bad = GradientChecker.mismatches(f, at: theta, analytic: analytic, indices: hPart)
        #expect(bad.count > hPart.count / 4)
    }
}
