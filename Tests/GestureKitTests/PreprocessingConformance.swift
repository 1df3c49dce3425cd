import Foundation
import Testing
@testable import GestureKit

/// Helpers shared by the stage test suites: JSON round trips, decoding hand-written specs through
/// the pipeline's kind lookup, and bit-level comparison.
enum StageTesting {
    static func json<T: Encodable>(_ value: T) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return try e.encode(value)
    }

    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: json(value))
    }

    static func bits(_ values: [Float]) -> [UInt32] { values.map(\.bitPattern) }

    /// Decodes a hand-written spec (with its `"kind"`) through ``StageKinds``, as the pipeline will.
    static func decode<T>(_ spec: String, _ types: [T], role: String) throws -> any Stage {
        let decoder = JSONDecoder()
        decoder.userInfo[StageBox.typesKey] = StageBox.Types(types: types.map { $0 as Any }, role: role)
        return try decoder.decode(StageBox.self, from: Data(spec.utf8)).stage
    }

    /// The field a hand-written spec's error names (nil: it decoded; another error: its description).
    static func badField<T>(_ spec: String, _ types: [T], role: String) -> String? {
        do { _ = try decode(spec, types, role: role); return nil }
        catch let e as GestureKitError { return e.field } catch { return "\(error)" }
    }

    struct StageBox: Decodable {
        struct Types: @unchecked Sendable { var types: [Any]; var role: String }
        static let typesKey = CodingUserInfoKey(rawValue: "stageTypes")!
        var stage: any Stage
        init(from decoder: Decoder) throws {
            let t = decoder.userInfo[Self.typesKey] as! Types
            stage = try decodeStage(t.types, role: t.role, from: decoder)
        }
    }

    /// A deterministic 3-channel test signal (noise around different offsets, two sines).
    static func signal(frames: Int = 80, seed: UInt64 = 7, rate: Double? = 50) -> TimeSeries {
        var g = SeededGenerator(seed: seed)
        var v = [Float]()
        for i in 0..<frames {
            let t = Float(i) / 50
            v.append(9.8 + 0.3 * g.nextGaussian())
            v.append(2 * sinf(2 * .pi * 3 * t) + 0.1 * g.nextGaussian())
            v.append(-1 + sinf(2 * .pi * 11 * t))
        }
        return TimeSeries(values: v, channelCount: 3, sampleRate: rate)
    }

    /// Runs `series` frame by frame through `stage` (no reset first).
    static func run<P: Preprocessor>(_ stage: inout P, _ series: TimeSeries) -> [Float] {
        var out = series.values
        let c = series.channelCount
        out.withUnsafeMutableBufferPointer { all in
            for f in 0..<series.frameCount {
                stage.process(UnsafeMutableBufferPointer(rebasing: all[(f * c)..<((f + 1) * c)]))
            }
        }
        return out
    }

    /// The conformance checks every preprocessor passes: JSON round trip gives bit-identical output,
    /// reset() restores the fresh state, and non-finite input neither traps nor (when
    /// `finiteAfterBadInput`) leaks into later outputs.
    static func checkPreprocessor<P: Preprocessor>(_ unfitted: P, finiteAfterBadInput: Bool = true) throws {
        var stage = unfitted
        let training = [signal(seed: 1), signal(seed: 2)]
        try stage.fit(training, channels: 3, sampleRate: 50)
        try stage.validate()
        let input = signal(seed: 3)
        let reference = stage.apply(to: input).values
        #expect(reference.allSatisfy { $0.isFinite }, "\(P.kind): finite input gave non-finite output")

        // Round trip: configuration + learned state only, yet identical outputs.
        let decoded = try roundTrip(stage)
        try decoded.validate()
        #expect(bits(decoded.apply(to: input).values) == bits(reference), "\(P.kind): JSON round trip changed outputs")
        var streamed = decoded
        #expect(bits(run(&streamed, input)) == bits(reference), "\(P.kind): decoded stage not ready to stream")

        // reset() after some other history behaves as a fresh stage.
        var used = stage
        _ = run(&used, signal(seed: 9, rate: 50))
        used.reset()
        #expect(bits(run(&used, input)) == bits(reference), "\(P.kind): reset did not restore the initial state")

        // Non-finite input.
        var bad = input
        bad[10, 0] = .nan; bad[11, 1] = .infinity; bad[12, 2] = -.infinity; bad[0, 1] = .nan
        var s = stage
        s.reset()
        let out = run(&s, bad)
        if finiteAfterBadInput {
            #expect(out.allSatisfy { $0.isFinite }, "\(P.kind): non-finite input leaked into the output")
        } else {
            // Stateless stages pass the bad values through but leave other frames untouched.
            let good = stage.apply(to: input).values
            for f in 20..<input.frameCount { for j in 0..<3 { #expect(out[f * 3 + j].bitPattern == good[f * 3 + j].bitPattern) } }
        }
    }
}

@Suite struct PreprocessingConformanceTests {
    @Test func everyPreprocessorConforms() throws {
        try StageTesting.checkPreprocessor(MovingAverage(window: 4))
        try StageTesting.checkPreprocessor(LowPass(cutoff: 5))
        try StageTesting.checkPreprocessor(LowPass(normalizedCutoff: 0.3, order: 5))
        try StageTesting.checkPreprocessor(HighPass(cutoff: 0.5, order: 4))
        try StageTesting.checkPreprocessor(MedianFilter(window: 6))
        try StageTesting.checkPreprocessor(Derivative(order: 2))
        try StageTesting.checkPreprocessor(DeadZone(lower: -0.5, upper: 1), finiteAfterBadInput: false)
        try StageTesting.checkPreprocessor(SavitzkyGolay(window: 7, polynomialOrder: 3))
        try StageTesting.checkPreprocessor(SavitzkyGolay(window: 6, polynomialOrder: 2, mode: .endpoint))
        try StageTesting.checkPreprocessor(Normalizer(method: .zscore), finiteAfterBadInput: false)
        try StageTesting.checkPreprocessor(Normalizer(method: .minmax), finiteAfterBadInput: false)
    }

    @Test(arguments: [
        #"{"kind": "movingAverage"}"#,
        #"{"kind": "movingAverage", "window": 9}"#,
        #"{"kind": "lowPass", "cutoff": 5}"#,
        #"{"kind": "lowPass", "normalizedCutoff": 0.2, "order": 3}"#,
        #"{"kind": "highPass", "cutoff": 0.3}"#,
        #"{"kind": "median", "window": 3}"#,
        #"{"kind": "derivative", "order": 2}"#,
        #"{"kind": "deadZone", "lower": -1, "upper": 1}"#,
        #"{"kind": "savitzkyGolay", "window": 9, "polynomialOrder": 3}"#,
        #"{"kind": "savitzkyGolay", "mode": "endpoint"}"#,
        #"{"kind": "normalize", "method": "minmax"}"#,
        #"{"kind": "normalize"}"#,
    ])
    func handWrittenSpecDecodesAndTrains(spec: String) throws {
        let decoded = try StageTesting.decode(spec, StageKinds.preprocessors, role: "preprocessor")
        guard var stage = decoded as? any Preprocessor else { Issue.record("not a preprocessor"); return }
        try stage.fit([StageTesting.signal()], channels: 3, sampleRate: 50)
        #expect(stage.apply(to: StageTesting.signal(seed: 4)).values.allSatisfy { $0.isFinite })
    }

    @Test func badSpecsAreRejectedNamingTheField() throws {
        func field(_ spec: String) -> String? { StageTesting.badField(spec, StageKinds.preprocessors, role: "preprocessor") }
        #expect(field(#"{"kind": "movingAverage", "window": 0}"#) == "window")
        #expect(field(#"{"kind": "lowPass"}"#) == "cutoff")
        #expect(field(#"{"kind": "lowPass", "cutoff": 30, "sampleRate": 50}"#) == "cutoff")
        #expect(field(#"{"kind": "highPass", "normalizedCutoff": 1.5}"#) == "normalizedCutoff")
        #expect(field(#"{"kind": "derivative", "order": 3}"#) == "order")
        #expect(field(#"{"kind": "deadZone", "lower": 1, "upper": 0}"#) == "lower")
        #expect(field(#"{"kind": "savitzkyGolay", "window": 4}"#) == "window")
        #expect(field(#"{"kind": "savitzkyGolay", "window": 5, "polynomialOrder": 5}"#) == "polynomialOrder")
        #expect(field(#"{"kind": "savitzkyGolay", "mode": "future"}"#) == "mode")
        #expect(field(#"{"kind": "normalize", "method": "robust"}"#) == "method")
        // Learned state that does not fit together.
        let nan = PackedFloats([.nan, 1]), one = PackedFloats([1, 1])
        let badOffsets = #"{"kind": "normalize", "offsets": "\#(try String(decoding: StageTesting.json(nan), as: UTF8.self).dropFirst().dropLast())", "scales": "\#(try String(decoding: StageTesting.json(one), as: UTF8.self).dropFirst().dropLast())"}"#
        #expect(field(badOffsets) == "offsets")
        #expect(field(#"{"kind": "fancyFilter"}"#) == "kind")
    }
}
