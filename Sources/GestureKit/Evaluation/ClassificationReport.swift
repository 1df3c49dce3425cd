import Foundation

/// Accuracy, rejection, confusion matrix and per-class precision / recall / F1 of predictions
/// against true labels. `nil` on either side is null (rejected, or the rest class).
public struct ClassificationReport: Sendable, Codable, Hashable {
    /// Row and column labels of the confusion matrix: the classes, then `null`.
    public var labels: [String]
    /// Fraction of examples whose prediction equals the truth (null truth is matched by null).
    public var accuracy: Double
    /// Fraction of examples of a real class that were predicted null.
    public var rejected: Double
    /// `confusion.matrix[truth][predicted]` counts, in ``labels`` order.
    public var confusion: Confusion
    /// Precision, recall and F1 per class name (the null label included).
    public var perClass: [String: ClassScores]
    /// Examples the report counts.
    public var examples: Int

    /// A confusion matrix: `matrix[truth][predicted]` counts, rows and columns in `labels` order.
    public struct Confusion: Sendable, Codable, Hashable {
        /// Row and column labels.
        public var labels: [String]
        /// Counts, `matrix[truth][predicted]`.
        public var matrix: [[Int]]
    }

    /// One class's scores against the truth.
    public struct ClassScores: Sendable, Codable, Hashable {
        /// Of the examples predicted as this class, the fraction that are.
        public var precision: Double
        /// Of the examples of this class, the fraction predicted as it.
        public var recall: Double
        /// Harmonic mean of precision and recall (0 when both are 0).
        public var f1: Double
        /// Examples of this class in the truth.
        public var support: Int
    }

    /// The label under which null (rejected or rest) predictions and truths are counted.
    public static let nullLabel = "null"

    /// - Parameters:
    ///   - classes: the class names that may appear (others are an error of the caller).
    ///   - truths: the true label of each example, `nil` for null.
    ///   - predictions: the predicted label of each example, `nil` for null (rejected or rest).
    public init(classes: [String], truths: [String?], predictions: [String?]) {
        precondition(truths.count == predictions.count)
        let labels = classes + [Self.nullLabel]
        let index = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        let nullIndex = labels.count - 1
        var m = [[Int]](repeating: [Int](repeating: 0, count: labels.count), count: labels.count)
        for (t, p) in zip(truths, predictions) {
            let ti = t.flatMap { index[$0] } ?? nullIndex
            let pi = p.flatMap { index[$0] } ?? nullIndex
            m[ti][pi] += 1
        }
        let n = truths.count
        let correct = labels.indices.reduce(0) { $0 + m[$1][$1] }
        let real = classes.indices.reduce(0) { $0 + m[$1].reduce(0, +) }
        let rejectedCount = classes.indices.reduce(0) { $0 + m[$1][nullIndex] }
        var per: [String: ClassScores] = [:]
        for (i, c) in classes.enumerated() {
            let tp = Double(m[i][i])
            let predicted = Double(labels.indices.reduce(0) { $0 + m[$1][i] })
            let support = m[i].reduce(0, +)
            let precision = predicted > 0 ? tp / predicted : 0
            let recall = support > 0 ? tp / Double(support) : 0
            let f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
            per[c] = ClassScores(precision: precision, recall: recall, f1: f1, support: support)
        }
        self.labels = labels
        self.accuracy = n > 0 ? Double(correct) / Double(n) : 0
        self.rejected = real > 0 ? Double(rejectedCount) / Double(real) : 0
        self.confusion = Confusion(labels: labels, matrix: m)
        self.perClass = per
        self.examples = n
    }

    /// The confusion matrix and per-class scores as text tables.
    public var text: String {
        var out = String(format: "accuracy %.4f   rejected %.4f   examples %d\n\n", accuracy, rejected, examples)
        let width = max(8, (labels.map(\.count).max() ?? 0) + 1)
        func pad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        out += pad("truth \\ predicted", width + 2) + labels.map { pad($0, width) }.joined() + "\n"
        for (i, l) in labels.enumerated() where confusion.matrix[i].reduce(0, +) > 0 || i < labels.count - 1 {
            out += pad(l, width + 2) + confusion.matrix[i].map { pad(String($0), width) }.joined() + "\n"
        }
        out += "\n" + pad("class", width + 2) + pad("precision", 11) + pad("recall", 9) + pad("f1", 9) + pad("support", 9) + "\n"
        for l in labels.dropLast() {
            guard let s = perClass[l] else { continue }
            out += pad(l, width + 2) + pad(String(format: "%.4f", s.precision), 11) + pad(String(format: "%.4f", s.recall), 9)
                + pad(String(format: "%.4f", s.f1), 9) + pad(String(s.support), 9) + "\n"
        }
        return out
    }

    /// The confusion matrix drawn as an SVG heat map (rows: truth, columns: predicted).
    public var svg: String {
        let n = labels.count
        let cell = 48, margin = 12 + 7 * (labels.map(\.count).max() ?? 4)
        let size = margin + n * cell + 20
        func esc(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(size)\" height=\"\(size + 20)\" font-family=\"sans-serif\" font-size=\"11\">\n"
        s += "<text x=\"\(margin)\" y=\"14\">predicted →   (accuracy \(String(format: "%.3f", accuracy)))</text>\n"
        for (i, row) in confusion.matrix.enumerated() {
            let total = max(row.reduce(0, +), 1)
            let y = margin + i * cell
            s += "<text x=\"\(margin - 6)\" y=\"\(y + cell / 2 + 4)\" text-anchor=\"end\">\(esc(labels[i]))</text>\n"
            for (j, v) in row.enumerated() {
                let x = margin + j * cell
                let shade = Int(255 - 200 * Double(v) / Double(total))
                s += "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(cell)\" height=\"\(cell)\" fill=\"rgb(\(shade),\(shade),255)\" stroke=\"#888\"/>"
                s += "<text x=\"\(x + cell / 2)\" y=\"\(y + cell / 2 + 4)\" text-anchor=\"middle\">\(v)</text>\n"
            }
        }
        for (j, l) in labels.enumerated() {
            let x = margin + j * cell + cell / 2
            s += "<text x=\"\(x)\" y=\"\(margin + n * cell + 14)\" text-anchor=\"middle\">\(esc(String(l.prefix(8))))</text>\n"
        }
        return s + "</svg>\n"
    }
}
