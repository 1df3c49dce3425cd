import Foundation
import Testing
@testable import GestureKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C generator's pieces; the exported C against the Swift recogniser is checked end to end by
/// the CLI tests (ExportCLITests) and scripts/export-check.
@Suite struct ExportCTests {
    /// Weights reach the C exactly: every literal reads back, through C's own parser, as the value.
    @Test func literalsReadBackExactly() {
        var rng = SeededGenerator(seed: 50)
        var floats: [Float] = [0, -0.0, 1, 0.1, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .ulpOfOne]
        var doubles: [Double] = [0, 1, 0.1, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        for _ in 0..<20_000 {
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            if f.isFinite { floats.append(f) }
            let d = Double(bitPattern: rng.next())
            if d.isFinite { doubles.append(d) }
        }
        for f in floats {
            let text = CBuilder.literal(f)
            #expect(text.hasSuffix("f"))
            #expect(strtof(String(text.dropLast()), nil).bitPattern == f.bitPattern, "\(text)")
        }
        for d in doubles {
            #expect(strtod(CBuilder.literal(d), nil).bitPattern == d.bitPattern)
        }
        #expect(CBuilder.literal(Float.infinity) == "INFINITY")
    }

    /// The state's size is what C makes of the struct: fields at multiples of their size, the whole
    /// padded to its widest field (x86-64 and the Arm AAPCS alike).
    @Test func stateBytesFollowTheCLayout() {
        var b = CBuilder(prefix: "p")
        #expect(b.stateBytes == 4)  // an empty state still holds one int
        b.field(.int32, "a")
        b.field(.double, "b")           // 4 bytes of padding before it: 8..16
        b.field(.float, "c", count: 3)  // 16..28
        #expect(b.stateBytes == 32)     // padded to 8
        b.field(.int32, "d")            // 28..32
        #expect(b.stateBytes == 32)
        #expect(b.stateDeclaration.contains("    float c[3];\n"))
    }

    @Test func prefixesAreCNames() {
        #expect(CExport.isValidPrefix("live_2"))
        #expect(!CExport.isValidPrefix("2live") && !CExport.isValidPrefix("live-2") && !CExport.isValidPrefix(""))
        #expect(CExport.prefix(forFile: "models/basic-motions.v2.gesture") == "basic_motions_v2")
        #expect(CExport.prefix(forFile: "9.gesture") == "g_9")
    }

    /// A stage with no C form is refused with the stage named, and `exportC` writes nothing.
    @Test func refusesAStageWithoutACFormAndWritesNothing() throws {
        let spec = try TestData.spec("""
            {"preprocessing": [{"kind": "movingAverage", "window": 3}],
             "features": {"extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "centroid"}}
            """)
        let pipeline = try Pipeline.train(spec, on: try Dataset.load(TestData.basicMotionsTrain))
        #expect(throws: GestureKitError.self) { try pipeline.cExport(prefix: "p") }
        do { _ = try pipeline.cExport(prefix: "p") } catch let e as GestureKitError {
            #expect(e.field == "preprocessing[0] (movingAverage)")
            #expect(e.message.hasPrefix("cannot export to C: "))
        }
        let dir = URL(fileURLWithPath: TestData.temporaryFile("refused-\(UUID().uuidString)"))
        #expect(throws: GestureKitError.self) { try pipeline.exportC(to: dir, prefix: "p") }
        #expect(!FileManager.default.fileExists(atPath: dir.path))
    }

    /// Flash is the weights, counted from the model: a centroid per class and the scaler's two
    /// vectors, four bytes each.
    @Test func flashBytesAreTheWeights() throws {
        let spec = try TestData.spec("""
            {"features": {"extractors": [{"kind": "timeDomain"}], "transforms": [{"kind": "scale"}]},
             "classifier": {"kind": "centroid"}}
            """)
        let pipeline = try Pipeline.train(spec, on: try Dataset.load(TestData.basicMotionsTrain))
        let c = try pipeline.cExport(prefix: "motions")
        let features = pipeline.training.featureCount
        #expect(features == 6 * 5)
        #expect(c.flashBytes == 4 * (pipeline.classes.count * features + 2 * features))
        #expect(c.header.contains("motions_decision motions_push(motions_state *s, const float *frame);"))
        #expect(c.source.contains("sizeof(motions_state) == \(c.ramBytes)"))
    }
}
