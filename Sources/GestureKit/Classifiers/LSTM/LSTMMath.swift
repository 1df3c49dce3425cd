/// Element-wise kernels of the streaming LSTM: activations and softmax over raw pointers (training
/// uses the same exponential, with fused multiply-adds, in the C kernels of `gk_lstm.h`).
///
/// The exponential is a Cephes-style range reduction plus a degree-6 polynomial written with plain
/// arithmetic and bit operations only, so that loops over it vectorise (libm's `expf`/`tanhf` do not).
/// Its relative error is about 2 ulp on the clamped range, well below what training notices; the
/// backward pass differentiates through the activation's output (`s * (1 - s)`, `1 - t * t`), so the
/// gradient check still holds to Float precision.
enum LSTMMath {
    /// e^x for x clamped to [-87, 88].
    @inline(__always)
    static func exp(_ x: Float) -> Float {
        var x = x
        x = x < -87 ? -87 : x
        x = x > 88 ? 88 : x
        // k = round(x / ln 2) with the 1.5 * 2^23 trick: the integer sits in the low mantissa bits of
        // `shifted`, so no (checked, non-vectorisable) float-to-int conversion is needed.
        let shifted = x * 1.442_695_04 + 12_582_912
        let n = shifted - 12_582_912
        let k = Int32(bitPattern: shifted.bitPattern) &- 0x4B40_0000
        let r = x - n * 0.693_359_375 + n * 2.121_944_4e-4
        var p: Float = 1.987_569_15e-4
        p = p * r + 1.398_199_95e-3
        p = p * r + 8.333_451_9e-3
        p = p * r + 4.166_579_59e-2
        p = p * r + 1.666_666_55e-1
        p = p * r + 5.000_000_12e-1
        p = p * r * r + r + 1
        let scale = Float(bitPattern: UInt32(bitPattern: (k &+ 127) &<< 23))
        return p * scale
    }

    @inline(__always)
    static func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }

    @inline(__always)
    static func tanh(_ x: Float) -> Float { 1 - 2 / (exp(2 * x) + 1) }

    /// In place: `sigmoid` on `p[0..<sigmoidCount]`, `tanh` on the next `tanhCount` values.
    @inline(__always)
    static func gateActivations(_ p: UnsafeMutablePointer<Float>, sigmoidCount: Int, tanhCount: Int) {
        for j in 0..<sigmoidCount { p[j] = sigmoid(p[j]) }
        let q = p + sigmoidCount
        for j in 0..<tanhCount { q[j] = tanh(q[j]) }
    }

    /// The LSTM cell update for one example, gates ordered [i, f, o, g] (already activated):
    /// `c = f * cPrev + i * g`, `h = o * tanh(c)`. `cPrev` may alias `c`. (The batched training pass
    /// does the same in the C kernel `gk_lstm_forward_step`.)
    @inline(__always)
    static func cell(gates a: UnsafePointer<Float>, hidden h: Int, cPrev: UnsafePointer<Float>,
                     c: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>) {
        let i = a, f = a + h, o = a + 2 * h, g = a + 3 * h
        for j in 0..<h { c[j] = f[j] * cPrev[j] + i[j] * g[j] }
        for j in 0..<h { out[j] = o[j] * tanh(c[j]) }
    }

    /// Softmax of `n` logits into `out` (may alias); returns the arg max.
    @inline(__always)
    @discardableResult
    static func softmax(_ logits: UnsafePointer<Float>, _ n: Int, into out: UnsafeMutablePointer<Float>) -> Int {
        var best = 0
        var m = logits[0]
        for k in 1..<max(n, 1) where logits[k] > m { m = logits[k]; best = k }
        var sum: Float = 0
        for k in 0..<n {
            let e = exp(logits[k] - m)
            out[k] = e
            sum += e
        }
        let inv = 1 / sum
        for k in 0..<n { out[k] *= inv }
        return best
    }
}
