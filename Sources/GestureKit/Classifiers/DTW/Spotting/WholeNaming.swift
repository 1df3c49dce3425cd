/// Names a spotted segment by classifying a window of at least a typical performance of its class
/// around it, as the pipeline classifies a whole example.
///
/// The decoder can cut a gesture short and name the cut by a class whose gesture looks like that
/// part (UWave's gestures are partly made of each other's strokes). A window around the cut holds
/// the rest of the gesture: of three (starting at the cut, centred on it, ending with it), the one
/// nearest to a template is taken, and that template's class names the report. A window
/// that holds no whole gesture (the gesture was short, and the window runs into stillness or other
/// motion around it) lies far from every template: the window's name is taken only when its
/// distance is typical of the class it names, within `coefficient` standard deviations of the
/// class's training distances (the null-rejection statistics every DTW model learns); otherwise
/// the template's name stays.
struct WholeNaming: Sendable {
    let classifier: DTWClassifier
    /// Per class, the farthest window distance that still names it.
    let limits: [Float]

    /// Chosen on the spotting suite's tuning split (`scripts/spotting-suite --tuning`, when the key
    /// was opt-in), with the centred window alone and segments shorter than a typical performance
    /// only: 0 / 2 / 4 / 6 / 9 / 15 / no limit found 238 / 239 / 240 / 241
    /// / 241 / 241 / 240 of 300 gestures amid everyday motion with negatives, 1105 / 1105 / 1111 /
    /// 1117 / 1115 / 1115 / 1095 of 1260 between held still frames (no limit: BasicMotions 154 and
    /// the GRT letters 127 of 135, against 170 and 133 at 6), 231 / 232 / 233 / 235 / 233 / 235 / 233
    /// back to back.
    static let coefficient: Float = 6

    init?(_ classifier: DTWClassifier) {
        guard let model = classifier.model else { return nil }
        self.classifier = classifier
        let r = model.rejection
        limits = zip(r.distanceMeans, r.distanceStds).map { $0 + Self.coefficient * $1 }
    }

    /// The class the nearest of the windows names, or `nil` when it names none within its class's
    /// limit.
    func name(_ windows: [TimeSeries]) -> Int? {
        var best: (c: Int, d: Float)? = nil
        for w in windows {
            let p = classifier.predict(w)
            if let c = p.classIndex, let d = p.distance, d < best?.d ?? .infinity { best = (c, d) }
        }
        guard let (c, d) = best, c < limits.count, limits[c].isFinite, d <= limits[c] else { return nil }
        return c
    }
}
