import CGestureKernels
import Foundation

/// The shape of an LSTM network and where each parameter tensor lives in its flat parameter vector.
///
/// All matrices are column-major (the layout of ``Linalg``):
/// - convolution weights `F x (width * channels)`: column `k * channels + c` holds the F filter taps for
///   input channel `c` at offset `k` in the window (a window of row-major frames is then one column);
/// - LSTM layer `l` weights `4H x (in_l + H)`: gate pre-activations are `W * [x; h] + b`, gate rows
///   ordered [input, forget, output, cell] so the three sigmoids are contiguous;
/// - head weights `K x H`.
struct LSTMShape: Sendable, Hashable {
    var channels: Int
    var convolution: LSTMClassifier.Convolution?
    var hidden: Int
    var layers: Int
    var classes: Int

    /// Values per step entering the first LSTM layer.
    var lstmInput: Int { convolution?.filters ?? channels }
    func layerInput(_ l: Int) -> Int { l == 0 ? lstmInput : hidden }
    /// Frames a series needs for one LSTM step (the convolution width, or 1).
    var minimumFrames: Int { convolution?.width ?? 1 }

    /// Number of LSTM steps for a series of `frames` frames (after padding to ``minimumFrames``).
    func steps(frames: Int) -> Int {
        guard let conv = convolution else { return frames }
        return frames < conv.width ? 1 : (frames - conv.width) / conv.stride + 1
    }

    var layout: LSTMLayout { LSTMLayout(self) }
}

/// Offsets of each tensor in the flat parameter vector.
struct LSTMLayout: Sendable, Hashable {
    var convWeights: Range<Int>
    var convBias: Range<Int>
    var lstmWeights: [Range<Int>]
    var lstmBias: [Range<Int>]
    var headWeights: Range<Int>
    var headBias: Range<Int>
    var count: Int

    init(_ s: LSTMShape) {
        var at = 0
        func take(_ n: Int) -> Range<Int> { defer { at += n }; return at..<(at + n) }
        let f = s.convolution?.filters ?? 0
        convWeights = take(f * (s.convolution?.width ?? 0) * s.channels)
        convBias = take(f)
        lstmWeights = []
        lstmBias = []
        for l in 0..<s.layers {
            lstmWeights.append(take(4 * s.hidden * (s.layerInput(l) + s.hidden)))
            lstmBias.append(take(4 * s.hidden))
        }
        headWeights = take(s.classes * s.hidden)
        headBias = take(s.classes)
        count = at
    }

    /// The ranges that weight decay applies to (weights, not biases).
    var decayed: [Range<Int>] { [convWeights] + lstmWeights + [headWeights] }

    /// Seeded initial parameters: PyTorch's U(-1/sqrt(H), 1/sqrt(H)) for LSTM and head, He-uniform
    /// for the ReLU convolution, forget-gate bias 1 so early training remembers.
    static func initialParameters(_ s: LSTMShape, seed: UInt64) -> [Float] {
        let layout = LSTMLayout(s)
        var rng = SeededGenerator(seed: seed ^ 0x4C53_544D)
        var theta = [Float](repeating: 0, count: layout.count)
        func fill(_ r: Range<Int>, bound: Float) {
            for i in r { theta[i] = (2 * rng.nextUnit() - 1) * bound }
        }
        if let conv = s.convolution {
            fill(layout.convWeights, bound: (6 / Float(conv.width * s.channels)).squareRoot())
        }
        let k = 1 / Float(s.hidden).squareRoot()
        for l in 0..<s.layers {
            fill(layout.lstmWeights[l], bound: k)
            fill(layout.lstmBias[l], bound: k)
            let b = layout.lstmBias[l].lowerBound
            for j in 0..<s.hidden { theta[b + s.hidden + j] += 1 }
        }
        fill(layout.headWeights, bound: k)
        fill(layout.headBias, bound: k)
        return theta
    }
}

/// One growable scratch array, owned by a ``LSTMWorkspace``.
final class LSTMScratch<Element: BitwiseCopyable> {
    private(set) var pointer: UnsafeMutablePointer<Element>
    private(set) var capacity: Int

    init() {
        pointer = .allocate(capacity: 1)
        capacity = 1
    }

    deinit { pointer.deallocate() }

    /// A pointer to at least `n` elements (contents undefined after growing).
    func get(_ n: Int) -> UnsafeMutablePointer<Element> {
        if n > capacity {
            pointer.deallocate()
            capacity = max(n, capacity * 2)
            pointer = .allocate(capacity: capacity)
        }
        return pointer
    }

}

extension LSTMScratch where Element == Float {
    /// Like ``get(_:)`` with the first `n` floats set to zero.
    func zeroed(_ n: Int) -> UnsafeMutablePointer<Float> {
        let p = get(n)
        p.update(repeating: 0, count: n)
        return p
    }
}

/// Scratch memory for batched forward and backward passes, reused across batches so training does
/// not allocate per batch once the largest batch has been seen. Not shared across threads.
final class LSTMWorkspace {
    typealias Floats = LSTMScratch<Float>
    var patches = Floats(), conv = Floats(), convGrad = Floats()
    var z: [Floats] = [], gates: [Floats] = [], cells: [Floats] = [], tanhCells: [Floats] = []
    var masks: [Floats] = []
    var headIn = Floats(), headMask = Floats(), logits = Floats()
    var dTop = Floats(), dHidden = Floats(), dGates = Floats(), dInput = Floats()
    var dhNext = Floats(), dcNext = Floats(), zeros = Floats(), recurrentT = Floats()
    var starts = LSTMScratch<Int>(), convColumns: [Int] = []
    let layers: Int

    init(layers: Int) {
        self.layers = layers
        for _ in 0..<layers {
            z.append(Floats()); gates.append(Floats()); cells.append(Floats())
            tanhCells.append(Floats()); masks.append(Floats())
        }
    }

    /// Every float scratch array.
    var floatScratches: [Floats] {
        [patches, conv, convGrad, headIn, headMask, logits, dTop, dHidden, dGates, dInput, dhNext, dcNext, zeros,
         recurrentT] + z + gates + cells + tanhCells + masks
    }

    /// Memory held by the scratch arrays.
    var bytes: Int {
        floatScratches.reduce(0) { $0 + $1.capacity } * MemoryLayout<Float>.stride + starts.capacity * MemoryLayout<Int>.stride
    }
}

/// Workspaces of finished trainings, lent to the next ones. A new workspace's pages are faulted in
/// and zeroed by the kernel on first touch: measured ~7% of a 2-epoch training of 64 series of 100
/// steps (H = 64), and again for every fold of a cross-validation. Keeps at most two idle
/// workspaces (parallel folds) of at most 32 MiB each, so little memory stays held.
final class LSTMWorkspacePool: @unchecked Sendable {
    static let shared = LSTMWorkspacePool()
    static let idleLimit = 2
    static let maximumBytes = 32 << 20

    private let lock = NSLock()
    private var idle: [LSTMWorkspace] = []

    /// An idle workspace for `layers` layers, or a new one. Contents are undefined, as after
    /// ``LSTMScratch/get(_:)``.
    func borrow(layers: Int) -> LSTMWorkspace {
        lock.lock()
        defer { lock.unlock() }
        if let i = idle.lastIndex(where: { $0.layers == layers }) { return idle.remove(at: i) }
        return LSTMWorkspace(layers: layers)
    }

    func giveBack(_ workspace: LSTMWorkspace) {
        guard workspace.bytes <= Self.maximumBytes else { return }
        lock.lock()
        defer { lock.unlock() }
        if idle.count >= Self.idleLimit { idle.removeFirst() }
        idle.append(workspace)
    }

    /// Frees the idle workspaces.
    func drain() {
        lock.lock()
        defer { lock.unlock() }
        idle.removeAll()
    }
}

extension LSTMClassifier {
    /// Frees the scratch memory finished trainings keep for the next one (up to 64 MiB), for
    /// example when an app receives a memory warning. The next training allocates it again.
    public static func releaseCaches() { LSTMWorkspacePool.shared.drain() }
}

/// One series of a batch: `frames` normalised frames (at least ``LSTMShape/minimumFrames``) at `values`.
struct LSTMBatchItem {
    var values: UnsafePointer<Float>
    var frames: Int
    var label: Int
    var weight: Float
}

/// The result of a batched pass.
struct LSTMBatchResult {
    /// Weighted mean cross-entropy (weights as given per item).
    var loss: Double
    var correct: Int
}

/// Batched forward and backward passes (backpropagation through time) of the network.
///
/// Series of different lengths are left-padded to the longest one in the batch and masked: padded
/// steps keep `h = c = 0` and get no gradient, so every series ends at the last step, where the head
/// reads its hidden state, and its output is exactly what it would be alone.
enum LSTMNetwork {
    /// Computes the loss of a batch and, when `gradient` is given, writes d(loss)/d(theta) there
    /// (overwriting it). `dropout` is the drop probability (0 at evaluation); masks come from `rng`.
    /// - Complexity: O(T * B * 4H * (in + H)): per layer and step one GEMM forward and one backward
    ///   (for dh), and one weight-gradient GEMM per few steps; the element-wise step math runs in
    ///   vectorised C kernels.
    ///
    /// Layer `l` keeps `z` (in_l + H rows, (T + 1) * B columns): column `t * B + b` is `[x_t; h_{t-1}]`
    /// of series `b`, so the kernel writes `h_t` straight into the next step's GEMM operand, and the
    /// weight gradient is `dG z^T` without copies. Column block `T` holds the last hidden states.
    static func run(_ s: LSTMShape, theta: UnsafePointer<Float>, batch: [LSTMBatchItem],
                    gradient: UnsafeMutablePointer<Float>?, dropout: Float, rng: inout SeededGenerator,
                    workspace ws: LSTMWorkspace) -> LSTMBatchResult {
        let layout = s.layout
        let B = batch.count
        let H = s.hidden, G = 4 * H, K = s.classes, L = s.layers
        let C = s.channels
        precondition(B > 0, "LSTMNetwork.run: empty batch")
        let keep = 1 - dropout
        let useDropout = dropout > 0

        // Step counts and left-padding offsets.
        var T = 0
        for item in batch { T = max(T, s.steps(frames: item.frames)) }
        let starts = ws.starts.get(B)
        for (b, item) in batch.enumerated() { starts[b] = T - s.steps(frames: item.frames) }
        let TB = T * B

        // Convolution front end over all windows of the batch: one GEMM.
        var N = 0
        var convOut: UnsafeMutablePointer<Float>? = nil
        var patches: UnsafeMutablePointer<Float>? = nil
        if let cv = s.convolution {
            ws.convColumns.removeAll(keepingCapacity: true)
            for item in batch { ws.convColumns.append(N); N += s.steps(frames: item.frames) }
            let P = cv.width * C, F = cv.filters
            let pp = ws.patches.get(P * N)
            for (b, item) in batch.enumerated() {
                for t in 0..<s.steps(frames: item.frames) {
                    (pp + (ws.convColumns[b] + t) * P).update(from: item.values + t * cv.stride * C, count: P)
                }
            }
            let u = ws.conv.get(F * N)
            let bias = theta + layout.convBias.lowerBound
            for n in 0..<N { (u + n * F).update(from: bias, count: F) }
            Linalg.gemm(m: F, n: N, k: P, a: theta + layout.convWeights.lowerBound, lda: F,
                        b: pp, ldb: P, beta: 1, c: u, ldc: F)
            for i in 0..<(F * N) where u[i] < 0 { u[i] = 0 }
            convOut = u
            patches = pp
        }

        // LSTM layers, one GEMM per step for the whole batch.
        for l in 0..<L {
            let I = s.layerInput(l), Z = I + H
            let z = ws.z[l].get((TB + B) * Z), a = ws.gates[l].get(max(TB * G, 1))
            let c = ws.cells[l].get(max(TB * H, 1)), tc = ws.tanhCells[l].get(max(TB * H, 1))
            let w = theta + layout.lstmWeights[l].lowerBound
            let bias = theta + layout.lstmBias[l].lowerBound
            // Inputs of this layer (x part of z); padding steps read zeros (their outputs are masked).
            if l == 0 {
                for t in 0..<T {
                    for b in 0..<B {
                        let x = z + (t * B + b) * Z
                        let j = t - starts[b]
                        if j < 0 {
                            x.update(repeating: 0, count: I)
                        } else if let u = convOut {
                            x.update(from: u + (ws.convColumns[b] + j) * I, count: I)
                        } else {
                            x.update(from: batch[b].values + j * C, count: I)
                        }
                    }
                }
            } else {
                let zb = ws.z[l - 1].pointer, Zb = s.layerInput(l - 1) + H
                let mask = ws.masks[l - 1].get(max(TB * H, 1))
                if useDropout {
                    for i in 0..<(TB * H) { mask[i] = rng.nextUnit() < keep ? 1 / keep : 0 }
                }
                for r in 0..<TB {
                    let x = z + r * Z, hb = zb + (r + B) * Zb + (Zb - H)
                    if useDropout {
                        let m = mask + r * H
                        for j in 0..<H { x[j] = hb[j] * m[j] }
                    } else {
                        x.update(from: hb, count: H)
                    }
                }
            }
            for b in 0..<B { (z + b * Z + I).update(repeating: 0, count: H) }
            for t in 0..<T {
                let zt = z + t * B * Z, at = a + t * B * G, r = t * B * H
                // h_{-1} = 0: the first step needs only the x rows.
                Linalg.gemm(m: G, n: B, k: t == 0 ? I : Z, a: w, lda: G, b: zt, ldb: Z, beta: 0, c: at, ldc: G)
                gk_lstm_forward_step(at, bias, H, B, t == 0 ? nil : c + r - B * H, c + r, tc + r,
                                     zt + B * Z + I, Z, starts, t)
            }
        }

        // Head on the last hidden state.
        let ZT = s.layerInput(L - 1) + H, top = ws.z[L - 1].pointer + T * B * ZT + (ZT - H)
        let hd = ws.headIn.get(B * H), hm = ws.headMask.get(B * H)
        for b in 0..<B { (hd + b * H).update(from: top + b * ZT, count: H) }
        if useDropout {
            for i in 0..<(B * H) {
                hm[i] = rng.nextUnit() < keep ? 1 / keep : 0
                hd[i] *= hm[i]
            }
        }
        let logits = ws.logits.get(B * K)
        let hb = theta + layout.headBias.lowerBound
        for b in 0..<B { (logits + b * K).update(from: hb, count: K) }
        Linalg.gemm(m: K, n: B, k: H, a: theta + layout.headWeights.lowerBound, lda: K, b: hd, ldb: H,
                    beta: 1, c: logits, ldc: K)
        var totalWeight: Double = 0
        for item in batch { totalWeight += Double(item.weight) }
        var loss: Double = 0
        var correct = 0
        for b in 0..<B {
            let p = logits + b * K
            // Log-sum-exp in Double for an accurate loss (the gradient check compares losses).
            var m = p[0]
            for k in 1..<K where p[k] > m { m = p[k] }
            var sum: Double = 0
            for k in 0..<K { sum += Foundation.exp(Double(p[k] - m)) }
            let y = batch[b].label
            loss += Double(batch[b].weight) * (Foundation.log(sum) - Double(p[y] - m))
            if LSTMMath.softmax(p, K, into: p) == y { correct += 1 }
        }
        loss /= totalWeight
        guard let grad = gradient else { return LSTMBatchResult(loss: loss, correct: correct) }

        // Backward. `logits` now holds probabilities; turn them into d(loss)/d(logits).
        grad.update(repeating: 0, count: layout.count)
        let invW = Float(1 / totalWeight)
        for b in 0..<B {
            let p = logits + b * K
            p[batch[b].label] -= 1
            let wb = batch[b].weight * invW
            for k in 0..<K { p[k] *= wb }
        }
        Linalg.gemm(transposeB: .transpose, m: K, n: H, k: B, a: logits, lda: K, b: hd, ldb: H,
                    c: grad + layout.headWeights.lowerBound, ldc: K)
        let ghb = grad + layout.headBias.lowerBound
        for b in 0..<B { for k in 0..<K { ghb[k] += logits[b * K + k] } }
        // Gradient reaching the top layer's hidden states: only at the last step.
        let dTop = ws.dTop.get(B * H)
        Linalg.gemm(transposeA: .transpose, m: H, n: B, k: K, a: theta + layout.headWeights.lowerBound, lda: K,
                    b: logits, ldb: K, c: dTop, ldc: H)
        if useDropout { for i in 0..<(B * H) { dTop[i] *= hm[i] } }
        // dG of the last few steps only: their weight gradient is one GEMM whose operands stay in cache.
        let chunk = Self.weightGradientSteps
        let dG = ws.dGates.get(chunk * B * G)
        let dhNext = ws.dhNext.get(B * H), dcNext = ws.dcNext.get(B * H)
        let zeros = ws.zeros.zeroed(B * H)
        var dH = ws.dHidden.pointer
        for l in stride(from: L - 1, through: 0, by: -1) {
            let I = s.layerInput(l), Z = I + H
            let z = ws.z[l].pointer, a = ws.gates[l].pointer, c = ws.cells[l].pointer, tc = ws.tanhCells[l].pointer
            let w = theta + layout.lstmWeights[l].lowerBound
            let wGrad = grad + layout.lstmWeights[l].lowerBound, bGrad = grad + layout.lstmBias[l].lowerBound
            // Gradient of this layer's inputs, when something below needs it.
            let dX: UnsafeMutablePointer<Float>? = l > 0 || s.convolution != nil ? ws.dInput.get(TB * I) : nil
            // W_h^T stored (H x 4H): dh = W_h^T dG as a plain GEMM runs ~10% faster than a transposed one.
            let wT = ws.recurrentT.get(H * G)
            for j in 0..<H {
                let col = w + (I + j) * G
                for g in 0..<G { wT[g * H + j] = col[g] }
            }
            dhNext.update(repeating: 0, count: B * H)
            dcNext.update(repeating: 0, count: B * H)
            for t in stride(from: T - 1, through: 0, by: -1) {
                let r = t * B * H, t0 = t - t % chunk, dGt = dG + (t - t0) * B * G
                let dhIn = l < L - 1 ? dH + r : t == T - 1 ? dTop : zeros
                gk_lstm_backward_step(a + t * B * G, tc + r, t == 0 ? zeros : c + r - B * H, dhIn, dhNext, dcNext,
                                      dGt, bGrad, H, B, starts, t)
                if t > 0 {
                    // dh_{t-1} = W_h^T dG_t for the whole batch.
                    Linalg.gemm(m: H, n: B, k: G, a: wT, lda: H, b: dGt, ldb: G, c: dhNext, ldc: H)
                }
                guard t == t0 else { continue }
                // Steps t0..<t0 + chunk: dW += dG z^T, dX = W_x^T dG.
                let n = (min(t0 + chunk, T) - t0) * B
                Linalg.gemm(transposeB: .transpose, m: G, n: Z, k: n, a: dG, lda: G, b: z + t0 * B * Z, ldb: Z,
                            beta: 1, c: wGrad, ldc: G)
                if let dX {
                    Linalg.gemm(transposeA: .transpose, m: I, n: n, k: G, a: w, lda: G, b: dG, ldb: G,
                                c: dX + t0 * B * I, ldc: I)
                }
            }
            guard let dX else { continue }
            if l > 0 {
                dH = ws.dHidden.get(TB * H)
                if useDropout {
                    let mask = ws.masks[l - 1].pointer
                    for i in 0..<(TB * H) { dH[i] = dX[i] * mask[i] }
                } else {
                    dH.update(from: dX, count: TB * H)
                }
            } else if let cv = s.convolution, let u = convOut, let pp = patches {
                let F = cv.filters, P = cv.width * C
                let dU = ws.convGrad.zeroed(F * N)
                for b in 0..<B {
                    for t in starts[b]..<T {
                        let col = ws.convColumns[b] + t - starts[b]
                        let src = dX + (t * B + b) * F, dst = dU + col * F, uc = u + col * F
                        for f in 0..<F where uc[f] > 0 { dst[f] = src[f] }
                    }
                }
                Linalg.gemm(transposeB: .transpose, m: F, n: P, k: N, a: dU, lda: F, b: pp, ldb: P,
                            c: grad + layout.convWeights.lowerBound, ldc: F)
                let gcb = grad + layout.convBias.lowerBound
                for n in 0..<N { for f in 0..<F { gcb[f] += dU[n * F + f] } }
            }
        }
        return LSTMBatchResult(loss: loss, correct: correct)
    }

    /// Steps per weight-gradient GEMM (measured: 3 steps of a 16-series batch run faster than one
    /// GEMM over all steps, whose dG no longer fits in cache).
    static let weightGradientSteps = 3
}

