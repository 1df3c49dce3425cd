/// A trained ``LSTMClassifier`` run one frame at a time, carrying the hidden and cell states of every
/// layer between frames.
///
/// All buffers are allocated when the stream is made; ``step(_:)-([Float])`` does not allocate, provided the
/// caller does not keep the previous ``Prediction`` (its `scores` array is reused; if it is still held,
/// copy-on-write makes one new array).
///
/// With a convolution front end, the last `width` frames are kept in a ring buffer and the LSTM steps
/// once every `stride` frames (from the `width`-th frame on); in between, `step` returns the latest
/// prediction unchanged.
public struct LSTMStream: Sendable {
    let shape: LSTMShape
    let layout: LSTMLayout
    let theta: [Float]
    let mean: [Float]
    let invStd: [Float]
    /// Scratch and state in one array: per layer z = [x; h] (h is the carried hidden state) and c;
    /// gates; the ring buffer (stored twice so the window is contiguous); logits.
    var state: [Float]
    let zOffsets: [Int], cOffsets: [Int]
    let gatesOffset: Int, ringOffset: Int, logitsOffset: Int
    var framesSeen = 0
    var scores: [Float]
    var best = 0

    init(_ model: LSTMClassifier) {
        shape = model.shape
        layout = shape.layout
        theta = model.parameters
        mean = model.inputMean
        invStd = model.inputStd.map { 1 / $0 }
        var at = 0
        var zo: [Int] = [], co: [Int] = []
        for l in 0..<shape.layers {
            zo.append(at); at += shape.layerInput(l) + shape.hidden
            co.append(at); at += shape.hidden
        }
        zOffsets = zo
        cOffsets = co
        gatesOffset = at; at += 4 * shape.hidden
        ringOffset = at; at += 2 * (shape.convolution?.width ?? 0) * shape.channels
        logitsOffset = at; at += shape.classes
        state = [Float](repeating: 0, count: at)
        scores = [Float](repeating: 0, count: shape.classes)
        reset()
    }

    /// Number of input channels expected per frame.
    public var channelCount: Int { shape.channels }

    /// Forgets the carried state, as at the start of a new stream.
    /// - Complexity: O(H * classes).
    public mutating func reset() {
        framesSeen = 0
        state.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        scoreHead()
    }

    /// The prediction after the frames seen so far (the head on the current hidden state).
    public var current: Prediction {
        Prediction(classIndex: best, confidence: scores[best], scores: scores)
    }

    /// Feeds one frame of ``channelCount`` raw values.
    /// - Complexity: O(layers * 4H * (in + H) + H * classes) per LSTM step (one GEMV per layer), plus
    ///   O(filters * width * channels) for the convolution; no allocation.
    public mutating func step(_ frame: UnsafeBufferPointer<Float>) -> Prediction {
        precondition(frame.count == shape.channels, "LSTMStream.step: \(frame.count) values, expected \(shape.channels)")
        framesSeen += 1
        let C = shape.channels, H = shape.hidden, G = 4 * H
        let ready: Bool = theta.withUnsafeBufferPointer { tp in
            state.withUnsafeMutableBufferPointer { sp in
                let th = tp.baseAddress!, st = sp.baseAddress!
                let x0 = st + zOffsets[0]
                if let cv = shape.convolution {
                    // Normalised frame into both copies of the ring; the window is then contiguous.
                    let w = cv.width
                    let slot = (framesSeen - 1) % w
                    let r = st + ringOffset
                    for j in 0..<C {
                        let v = (frame[j] - mean[j]) * invStd[j]
                        r[slot * C + j] = v
                        r[(slot + w) * C + j] = v
                    }
                    guard framesSeen >= w, (framesSeen - w) % cv.stride == 0 else { return false }
                    let window = r + (slot + 1) * C
                    let F = cv.filters
                    x0.update(from: th + layout.convBias.lowerBound, count: F)
                    Linalg.gemv(m: F, n: w * C, a: th + layout.convWeights.lowerBound, lda: F, x: window, beta: 1, y: x0)
                    for f in 0..<F where x0[f] < 0 { x0[f] = 0 }
                } else {
                    for j in 0..<C { x0[j] = (frame[j] - mean[j]) * invStd[j] }
                }
                let gates = st + gatesOffset
                for l in 0..<shape.layers {
                    let I = shape.layerInput(l)
                    let z = st + zOffsets[l], c = st + cOffsets[l]
                    gates.update(from: th + layout.lstmBias[l].lowerBound, count: G)
                    Linalg.gemv(m: G, n: I + H, a: th + layout.lstmWeights[l].lowerBound, lda: G, x: z, beta: 1, y: gates)
                    LSTMMath.gateActivations(gates, sigmoidCount: 3 * H, tanhCount: H)
                    // h goes to this layer's z (next step) and to the next layer's input.
                    let hOut = l + 1 < shape.layers ? st + zOffsets[l + 1] : z + I
                    LSTMMath.cell(gates: gates, hidden: H, cPrev: UnsafePointer(c), c: c, out: hOut)
                    if l + 1 < shape.layers { (z + I).update(from: hOut, count: H) }
                }
                return true
            }
        }
        if ready { scoreHead() }
        return current
    }

    /// Convenience for arrays.
    public mutating func step(_ frame: [Float]) -> Prediction {
        frame.withUnsafeBufferPointer { step($0) }
    }

    /// Head and softmax on the top layer's hidden state, into `scores`.
    private mutating func scoreHead() {
        let H = shape.hidden, K = shape.classes
        let top = zOffsets[shape.layers - 1] + shape.layerInput(shape.layers - 1)
        best = theta.withUnsafeBufferPointer { tp in
            state.withUnsafeMutableBufferPointer { sp in
                scores.withUnsafeMutableBufferPointer { out in
                    let th = tp.baseAddress!, st = sp.baseAddress!
                    let logits = st + logitsOffset
                    logits.update(from: th + layout.headBias.lowerBound, count: K)
                    Linalg.gemv(m: K, n: H, a: th + layout.headWeights.lowerBound, lda: K, x: st + top, beta: 1, y: logits)
                    return LSTMMath.softmax(logits, K, into: out.baseAddress!)
                }
            }
        }
    }
}

/// The overlapping-window mode of the GestureIt app: every `hop` frames, the window of the last
/// `window` frames is classified from a fresh LSTM state.
///
/// Rather than re-running each window, `window / hop` interleaved slots each carry their own state:
/// slot `j` starts a new window at frames `j * hop`, `j * hop + window`, ...; every frame is fed to each
/// running slot, and when a slot's window completes its prediction is emitted and the slot restarts.
public struct LSTMWindowStream: WindowStream {
    /// Frames per window.
    public let window: Int
    /// Frames between decisions.
    public let hop: Int
    var slots: [LSTMStream]
    var started: [Bool]
    var frame = 0

    init(_ model: LSTMClassifier, window: Int, hop: Int) {
        precondition(window > 0 && hop > 0 && window % hop == 0,
                     "LSTMWindowStream: window (\(window)) must be a positive multiple of hop (\(hop))")
        self.window = window
        self.hop = hop
        let s = model.stream()
        slots = [LSTMStream](repeating: s, count: window / hop)
        started = [Bool](repeating: false, count: window / hop)
    }

    /// Forgets all windows in progress.
    public mutating func reset() {
        frame = 0
        for j in slots.indices { slots[j].reset(); started[j] = false }
    }

    /// Feeds one frame; returns the prediction of the window that ends at this frame, every `hop`
    /// frames once `window` frames have been seen, otherwise `nil`.
    /// - Complexity: `window / hop` LSTM steps (see ``LSTMStream/step(_:)-(UnsafeBufferPointer<Float>)``); no allocation.
    public mutating func step(_ values: UnsafeBufferPointer<Float>) -> Prediction? {
        let n = slots.count
        if frame % hop == 0 {
            let j = (frame / hop) % n
            slots[j].reset()
            started[j] = true
        }
        for j in 0..<n where started[j] { _ = slots[j].step(values) }
        frame += 1
        guard frame >= window, frame % hop == 0 else { return nil }
        return slots[(frame / hop) % n].current
    }
}
