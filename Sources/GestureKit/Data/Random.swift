/// A small, fast, seedable generator (SplitMix64) so that training, shuffling and splits are
/// reproducible on every platform from the same seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable, Codable {
    /// The generator's state; the same state gives the same sequence.
    public var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func nextUnit() -> Float { Float(next() >> 40) * (1.0 / Float(1 << 24)) }

    /// Standard normal (Box-Muller).
    public mutating func nextGaussian() -> Float {
        var u = nextUnit()
        while u <= 0 { u = nextUnit() }
        let v = nextUnit()
        return (-2 * logf(u)).squareRoot() * cosf(2 * .pi * v)
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#else
import Glibc
#endif
