/// Which multichannel form of DTW to use.
public enum DTWVariant: String, Sendable, Hashable, Codable, CaseIterable {
    /// One warping path for all channels; local cost = squared Euclidean distance between frames.
    case dependent
    /// One warping path per channel; the distance is the sum of one-channel DTW distances.
    case independent
}

/// The Sakoe-Chiba band: how far a warping path may stray from the diagonal.
public enum DTWBand: Sendable, Hashable {
    /// No constraint.
    case full
    /// Half-width as a fraction of the longer series' length (0.1 = 10 %), rounded up.
    case fraction(Double)
    /// Half-width in samples.
    case samples(Int)

    /// The half-width in samples for series of lengths `n` and `m`, or `nil` for a full window.
    public func window(_ n: Int, _ m: Int) -> Int? {
        switch self {
        case .full: nil
        case .fraction(let f): Int((f * Double(max(n, m))).rounded(.up))
        case .samples(let s): s
        }
    }
}

/// Computes DTW distances between two ``TimeSeries``, reusing its scratch buffers between calls.
///
/// The distance is the accumulated squared-Euclidean local cost along the best warping path (no
/// square root, as in aeon's `dtw_distance`), so a series' distance to itself is 0 and the DTW
/// distance of two equal-length series is at most their squared Euclidean distance.
///
/// ```swift
/// var dtw = DTWDistance(variant: .dependent, band: .fraction(0.1))
/// let d = dtw.distance(a, b)
/// ```
public struct DTWDistance: Sendable {
    /// Dependent or independent DTW.
    public var variant: DTWVariant
    /// The Sakoe-Chiba band.
    public var band: DTWBand
    @usableFromInline var scratch: [Float] = []

    /// A distance with this variant and band.
    public init(variant: DTWVariant = .dependent, band: DTWBand = .full) {
        self.variant = variant
        self.band = band
    }

    /// The DTW distance between `a` and `b` (same channel count), or `.infinity` once it is known
    /// to exceed `cutoff`.
    /// - Complexity: O(n * w * channels) time with `w` the band width (`m` for a full window);
    ///   O((n + m) * channels) scratch, allocated once and reused by later calls.
    public mutating func distance(_ a: TimeSeries, _ b: TimeSeries, cutoff: Float = .infinity) -> Float {
        precondition(a.channelCount == b.channelCount, "DTWDistance: \(a.channelCount) vs \(b.channelCount) channels")
        let n = a.frameCount, m = b.frameCount, c = a.channelCount
        let need = (n + m) * c + DTWKernel.scratchCount(n: n, m: m, channels: c)
        if scratch.count < need { scratch = [Float](repeating: 0, count: need) }
        let window = band.window(n, m) ?? max(n, m)
        let variant = self.variant
        return a.values.withUnsafeBufferPointer { pa in
            b.values.withUnsafeBufferPointer { pb in
                scratch.withUnsafeMutableBufferPointer { s in
                    let base = s.baseAddress!
                    let ta = base, tb = base + n * c
                    SeriesPreparation.transpose(pa.baseAddress!, frames: n, channels: c, into: ta)
                    SeriesPreparation.transpose(pb.baseAddress!, frames: m, channels: c, into: tb)
                    let rows = tb + m * c
                    switch variant {
                    case .dependent:
                        return DTWKernel.distance(a: ta, n: n, b: tb, m: m, channels: c, window: window, cutoff: cutoff,
                                                  scratch: rows)
                    case .independent:
                        return DTWKernel.independentDistance(a: ta, n: n, b: tb, m: m, channels: c, window: window,
                                                             cutoff: cutoff, scratch: rows)
                    }
                }
            }
        }
    }

    /// One DTW distance with fresh scratch; convenient, but allocates. Use an instance in loops.
    /// - Complexity: as ``distance(_:_:cutoff:)``.
    public static func distance(_ a: TimeSeries, _ b: TimeSeries, variant: DTWVariant = .dependent,
                                band: DTWBand = .full) -> Float {
        var d = DTWDistance(variant: variant, band: band)
        return d.distance(a, b)
    }
}
