import Foundation
import Testing
import GestureKit

/// Command-line options are typed end to end: what does not apply is refused by name, every command
/// takes one window syntax, and every failure speaks through one error path.
@Suite struct OptionsCLITests {
    static let train = CLI.repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TRAIN.ts").path
    static let test = CLI.repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TEST.ts").path

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("options-\(name)-\(UUID().uuidString).gesture").path
    }

    @Test func seedSeedsTheFoldsOfAClassifierWithoutOne() throws {
        let r = try CLI.run(["evaluate", Self.train, "--classifier", "dtw", "--folds", "5", "--seed", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("accuracy"))
    }

    @Test func badValuesAndMisplacedFlagsAreUsageErrors() throws {
        let out = Self.temporary("bad")
        let cases: [([String], String)] = [
            (["train", Self.train, "--classifier", "knn", "--seed=-1", "-o", out], "--seed"),
            (["train", Self.train, "--classifier", "dtw", "--epochs", "5", "-o", out], "--epochs does not apply to the dtw classifier"),
            (["train", Self.train, "--classifier", "nope", "-o", out], "- minirocket"),
            (["train", Self.train, "--window", "20,0", "-o", out], "--window"),
            (["train", Self.train, "--classifier", "knn", "--window", "20,5", "--hop", "5", "-o", out], "give the hop once"),
        ]
        for (args, says) in cases {
            let r = try CLI.run(args)
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.hasPrefix("error: "), "\(args): \(r.stderr)")
            #expect(r.stderr.contains(says), "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func trainingFlagsAreRefusedWhenEvaluatingATrainedPipeline() throws {
        let p = Self.temporary("knn")
        defer { try? FileManager.default.removeItem(atPath: p) }
        #expect(try CLI.run(["train", Self.train, "--classifier", "knn", "-o", p]).status == 0)
        for extra in [["--classifier", "lstm"], ["--epochs", "5"], ["--null-rejection", "2"], ["--window", "20"]] {
            let r = try CLI.run(["evaluate", p, Self.test] + extra)
            #expect(r.status == 64, "\(extra): \(r.stderr)")
            #expect(r.stderr.hasPrefix("error: \(extra[0]) does not apply when evaluating a trained pipeline"), "\(r.stderr)")
        }
    }

    @Test func bothWindowSyntaxesBuildTheSamePipeline() throws {
        let a = Self.temporary("a"), b = Self.temporary("b")
        defer { for p in [a, b] { try? FileManager.default.removeItem(atPath: p) } }
        #expect(try CLI.run(["train", Self.train, "--classifier", "knn", "--window", "20,5", "-o", a]).status == 0)
        #expect(try CLI.run(["train", Self.train, "--classifier", "knn", "--window", "20", "--hop", "5", "-o", b]).status == 0)
        let ia = try CLI.run(["info", a, "--json"]), ib = try CLI.run(["info", b, "--json"])
        #expect(ia.stdout.contains("\"hop\":5") || ia.stdout.contains("\"hop\" : 5"), "\(ia.stdout.prefix(400))")
        // Same windows, same training inputs: the two pipelines predict alike.
        let pa = try CLI.run(["predict", a, Self.test]), pb = try CLI.run(["predict", b, Self.test])
        #expect(pa.status == 0 && pa.stdout == pb.stdout)
        #expect(ib.status == 0)
        let cut = try CLI.run(["info", Self.train, "--window", "20,5"])
        #expect(cut.status == 0, "\(cut.stderr)")
    }

    @Test func inputErrorsExitOneWithTheSamePrefix() throws {
        let r = try CLI.run(["train", "/nonexistent/data.ts", "-o", Self.temporary("x")])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("error: /nonexistent/data.ts"), "\(r.stderr)")
    }

    @Test func specPrintsTheDefaultPipelines() throws {
        for name in ["dtw", "knn", "centroid", "lstm"] {
            let r = try CLI.run(["spec", name])
            #expect(r.status == 0)
            let file = try String(contentsOfFile: CLI.repo.appendingPathComponent("pipelines/\(name).json").path, encoding: .utf8)
            #expect(r.stdout == file, "\(name)")
        }
    }

    @Test func autoChoosesByCrossValidationAndSavesTheWinner() throws {
        let p = Self.temporary("auto")
        defer { try? FileManager.default.removeItem(atPath: p) }
        let r = try CLI.run(["train", Self.train, "--classifier", "auto", "-o", p])
        #expect(r.status == 0, "\(r.stderr)")
        for name in ["knn", "dtw", "minirocket"] { #expect(r.stderr.contains("  \(name) "), "\(r.stderr)") }
        let chose = try #require(r.stderr.split(separator: "\n").first { $0.hasPrefix("chose ") })
        let info = try CLI.run(["info", p, "--json"])
        let kind = chose.dropFirst(6) == "minirocket" ? "ridge" : String(chose.dropFirst(6))
        #expect(info.stdout.contains("\"\(kind)\""), "\(chose): \(info.stdout.prefix(300))")
        let misplaced = try CLI.run(["train", Self.train, "--classifier", "auto", "--epochs", "3", "-o", p + ".x"])
        #expect(misplaced.status == 64 && misplaced.stderr.contains("--epochs does not apply to --classifier auto"))
        // With --folds the choice is cross-validated itself: each outer fold chooses on its own part.
        let folds = try CLI.run(["evaluate", Self.train, "--classifier", "auto", "--folds", "4", "--json"])
        #expect(folds.status == 0, "\(folds.stderr)")
        for f in 1...4 { #expect(folds.stderr.contains("  fold \(f): chose "), "\(folds.stderr)") }
        #expect(!folds.stderr.contains("  fold 5"))
        #expect(folds.stdout.hasPrefix("{\"accuracy\":"), "\(folds.stdout.prefix(80))")
        let replay = try CLI.run(["evaluate", Self.train, "--classifier", "auto", "--spotting-replay"])
        #expect(replay.status == 64 && replay.stderr.hasPrefix("error: --classifier auto"), "\(replay.stderr)")
    }
}

/// A spec can name the class of unlabelled frames, so an activity-stream spec needs no --null-as.
@Suite struct UnlabelledSpecCLITests {
    @Test func unlabelledFramesBecomeTheSpecsClass() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("unlabelled-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var csv = "session,label,x,y\n"
        for i in 0..<300 {
            let label = (i / 50) % 3 == 0 ? "" : (i / 50) % 3 == 1 ? "wave" : "shake"
            csv += "s,\(label),\(sin(Double(i) * (label == "shake" ? 1.3 : 0.2))),\(label.isEmpty ? 0 : 1)\n"
        }
        let data = dir.appendingPathComponent("rec.csv").path
        try csv.write(toFile: data, atomically: true, encoding: .utf8)
        let spec = dir.appendingPathComponent("spec.json").path
        try #"{"features": {"window": 10, "hop": 5, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn", "k": 1}, "rest": "idle", "unlabelled": "idle"}"#
            .write(toFile: spec, atomically: true, encoding: .utf8)
        let p = dir.appendingPathComponent("p.gesture").path
        let t = try CLI.run(["train", data, "--spec", spec, "-o", p])
        #expect(t.status == 0, "\(t.stderr)")
        #expect(t.stderr.contains("idle"), "\(t.stderr)")
        // Without the key the rest class is not a class of the data: a clear error.
        try #"{"features": {"window": 10, "hop": 5, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn", "k": 1}, "rest": "idle"}"#
            .write(toFile: spec, atomically: true, encoding: .utf8)
        let u = try CLI.run(["train", data, "--spec", spec, "-o", p + ".2"])
        #expect(u.status == 1 && u.stderr.contains("idle"), "\(u.stderr)")
    }
}

/// `train --calibrate`: the post-processing is chosen on the recordings' sessions and saved.
@Suite struct CalibrateCLITests {
    @Test func calibratePrintsItsTableAndSavesTheChoice() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calibrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var csv = "session,label,x\n"
        for s in 0..<3 {
            for i in 0..<600 {
                let phase = (i / 100) % 3
                let label = phase == 0 ? "" : phase == 1 ? "up" : "down"
                let level = phase == 0 ? 0 : phase == 1 ? 1.0 : -1.0
                csv += "s\(s),\(label),\(level + 0.2 * sin(Double(i * (s + 3))))\n"
            }
        }
        let data = dir.appendingPathComponent("rec.csv").path
        try csv.write(toFile: data, atomically: true, encoding: .utf8)
        let spec = dir.appendingPathComponent("spec.json").path
        try #"{"features": {"window": 20, "hop": 5, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "centroid"}, "rest": "idle", "unlabelled": "idle"}"#
            .write(toFile: spec, atomically: true, encoding: .utf8)
        let p = dir.appendingPathComponent("p.gesture").path
        let t = try CLI.run(["train", data, "--spec", spec, "--calibrate", "-o", p])
        #expect(t.status == 0, "\(t.stderr)")
        #expect(t.stderr.contains("grouped by session") && t.stderr.contains("hmm learned") && t.stderr.contains("* "), "\(t.stderr)")
        let pipeline = try Pipeline.load(p)
        #expect(pipeline.spec.calibration == StreamCalibration.Settings())
        let chosen = t.stderr.split(separator: "\n").first { $0.hasPrefix("chose ") }.map(String.init) ?? ""
        #expect(chosen.contains("hmm") == pipeline.spec.postprocessing.contains { $0 is HMMFilter }, "\(chosen)")
        // Fewer sessions than folds: a clear error, nothing written.
        try #"{"features": {"window": 20, "hop": 5, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "centroid"}, "rest": "idle", "unlabelled": "idle", "calibration": {"folds": 5}}"#
            .write(toFile: spec, atomically: true, encoding: .utf8)
        let u = try CLI.run(["train", data, "--spec", spec, "-o", p + ".2"])
        #expect(u.status == 1 && u.stderr.contains("calibration.folds"), "\(u.stderr)")
        #expect(!FileManager.default.fileExists(atPath: p + ".2"))
    }
}
