import CGestureKernels

/// Whether a match of `length` stream frames is a plausible performance of a template of
/// `template` frames: at most ``SpringColumns/maxWarp`` times faster or slower. Without it a whole
/// template squeezed onto a few held frames, or a fragment of another gesture, could match.
@inline(__always)
func plausibleLength(_ length: Int, template m: Int) -> Bool {
    length * SpringColumns.maxWarp >= m && length <= m * SpringColumns.maxWarp
}

/// The subsequence-DTW column of every template (SPRING), advanced one stream frame at a time by the
/// vector kernel `gk_spring_step`: templates in groups of 8, one per lane, each group as long as its
/// longest template (the others' extra cells are computed and never read). Row -1 is free
/// (distance 0, starting now), which is what lets a match begin at any frame. Ties prefer left,
/// then diag, then up.
struct SpringColumns: Sendable {
    /// How much faster or slower than its template a gesture may be performed and still match.
    static let maxWarp = 2
    let channels: Int
    let lengths: [Int]
    /// Per group: its cell count and first cell; the template values interleaved by lane.
    let groupLengths: [Int]
    let groupCells: [Int]
    let interleaved: [Float]
    /// Cell (group g, cell i, lane j) at `(groupCells[g] + i) * 8 + j`.
    var distances: [Float]
    /// Start frames as 32-bit offsets from `base`.
    var starts: [Int32]
    var base = 0

    /// Columns over channel-major templates (`offsets[k]` is where template `k` starts).
    init(channels: Int, templates: [Float], lengths: [Int], offsets: [Int]) {
        self.channels = channels
        self.lengths = lengths
        var gl: [Int] = [], gc: [Int] = []
        var cells = 0
        for g in stride(from: 0, to: lengths.count, by: 8) {
            let m = lengths[g..<min(g + 8, lengths.count)].max() ?? 0
            gl.append(m)
            gc.append(cells)
            cells += m
        }
        var y = [Float](repeating: 0, count: cells * 8 * channels)
        for k in lengths.indices {
            let (g, lane) = (k / 8, k % 8), m = gl[g]
            for c in 0..<channels {
                for i in 0..<lengths[k] { y[(gc[g] * channels + c * m + i) * 8 + lane] = templates[offsets[k] + c * lengths[k] + i] }
            }
        }
        groupLengths = gl
        groupCells = gc
        interleaved = y
        distances = [Float](repeating: .infinity, count: cells * 8)
        starts = [Int32](repeating: 0, count: cells * 8)
    }

    /// Lanes of the kernel in use (8 with AVX2, else 4); results do not depend on it.
    static var lanes: Int { gk_spring_lanes() }
    /// Caps the kernel's lanes, for tests comparing the variants.
    static func limitLanes(_ lanes: Int) { gk_spring_limit_lanes(lanes) }

    /// Where template `k`'s cell `i` is in `distances` and `starts`.
    @inline(__always)
    func cell(_ k: Int, _ i: Int) -> Int { (groupCells[k / 8] + i) * 8 + k % 8 }

    /// Template `k`'s whole-template distance and the stream frame its path started at.
    @inline(__always)
    func whole(_ k: Int) -> (distance: Float, start: Int) {
        let at = cell(k, lengths[k] - 1)
        return (distances[at], base + Int(starts[at]))
    }

    /// No partial match: every cell unreachable.
    mutating func reset() {
        for i in distances.indices { distances[i] = .infinity; starts[i] = 0 }
        base = 0
    }

    /// No partial match, the next frame pushed being `frame` (starts stay small offsets from it).
    mutating func restart(at frame: Int) {
        for i in distances.indices { distances[i] = .infinity; starts[i] = 0 }
        base = frame
    }

    /// Drops the paths that started at or before `base + last`.
    mutating func forget(startingBy last: Int) {
        for i in distances.indices where Int(starts[i]) <= last { distances[i] = .infinity }
    }

    /// Advances every column by frame `x` (`channels` values), stream frame `t`.
    /// - Complexity: O(sum of group lengths * 8 * channels); no allocation.
    mutating func step(_ x: UnsafeBufferPointer<Float>, frame t: Int) {
        // Far older starts only ever fail the length and conflict tests, so clamping them when the
        // base moves keeps every decision.
        if t - base >= 1 << 30 {
            let shift = 1 << 29, oldest = Int(Int32.min / 2)
            for i in starts.indices { starts[i] = Int32(max(Int(starts[i]) - shift, oldest)) }
            base += shift
        }
        let channels = self.channels, at = Int32(t - base)
        groupLengths.withUnsafeBufferPointer { gl in
            groupCells.withUnsafeBufferPointer { gc in
                interleaved.withUnsafeBufferPointer { y in
                    distances.withUnsafeMutableBufferPointer { d in
                        starts.withUnsafeMutableBufferPointer { s in
                            gk_spring_step(x.baseAddress!, channels, gl.count, gl.baseAddress!, gc.baseAddress!, y.baseAddress!,
                                           d.baseAddress!, s.baseAddress!, at)
                        }
                    }
                }
            }
        }
    }
}
