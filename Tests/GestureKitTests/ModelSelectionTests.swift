import Testing
@testable import GestureKit

@Suite struct ModelSelectionTests {
    /// The table is each candidate's own cross-validation, and the winner is its best row.
    @Test func choosesTheBestCrossValidatedCandidate() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let choice = try ModelSelection.select(on: data, folds: 4)
        #expect(choice.table.map(\.name) == ModelSelection.defaultCandidates)
        #expect(choice.groupedBy == nil)
        for row in choice.table {
            let spec = try DefaultSpecs.build(classifier: row.name, specFile: nil)
            #expect(try Evaluation.crossValidate(spec, on: data, folds: 4).accuracy == row.accuracy, "\(row.name)")
        }
        let best = choice.table.map(\.accuracy).max()!
        #expect(choice.table.first { $0.name == choice.winner }?.accuracy == best)
        #expect(choice.table.last { $0.accuracy == best }?.name == choice.winner, "ties go to the later candidate")
    }

    /// Nested cross-validation: each outer fold's choice is the selection on its training part
    /// alone, and the pooled report is the chosen pipelines' predictions of the held-out folds,
    /// as an explicit loop over the same folds makes them.
    @Test func nestedCrossValidationChoosesOnEachTrainingPartOnly() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let nested = try ModelSelection.crossValidate(on: data, folds: 4, seed: 3, innerFolds: 3)
        var winners: [String] = []
        var right = 0
        for split in try data.folds(4, seed: 3) {
            let train = data.subset(split.train)
            let choice = try ModelSelection.select(on: train, folds: 3, seed: 3)
            winners.append(choice.winner)
            let pipeline = try Pipeline.train(choice.spec, on: train)
            for i in split.test where pipeline.label(of: try pipeline.predict(data.examples[i].series)) == data.examples[i].label {
                right += 1
            }
        }
        #expect(nested.winners == winners)
        #expect(nested.report.accuracy == Double(right) / Double(data.examples.count), "\(nested.report.accuracy) against \(right)")
        #expect(nested.report.confusion.matrix.reduce(0) { $0 + $1.reduce(0, +) } == data.examples.count)
    }

    @Test func unknownCandidateIsAnError() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        #expect(throws: GestureKitError.self) { try ModelSelection.select(on: data, candidates: ["svm"]) }
    }
}

@Suite struct ModelSelectionCandidateTests {
    /// The LSTM is tried only when the data can pay for its cross-validation.
    @Test func lstmJoinsFromTheStatedSize() {
        func data(_ n: Int) -> Dataset {
            Dataset(examples: (0..<n).map { Example(series: TimeSeries(values: [Float($0 % 2)], channelCount: 1), label: "\($0 % 2)") })
        }
        #expect(ModelSelection.candidates(for: data(ModelSelection.lstmMinimumExamples - 1)) == ModelSelection.defaultCandidates)
        #expect(ModelSelection.candidates(for: data(ModelSelection.lstmMinimumExamples)) == ModelSelection.defaultCandidates + ["lstm"])
    }
}
