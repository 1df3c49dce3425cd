import Foundation

/// A trained pipeline written as dependency-free C99: a header, a source and a host program that
/// replays CSV frames, deciding exactly as the Swift ``Recognizer`` does.
///
/// The generated code allocates nothing and keeps no global state: the caller owns one
/// `<prefix>_state` per stream, sized at compile time; weights are `static const` arrays (flash on
/// a microcontroller). Only the C standard library and libm are used. Float32 throughout, except
/// where the Swift path accumulates in Double (time-domain statistics, the live window's activity,
/// Butterworth sections, the FFT, several filters), which the C does the same way, in the same order.
///
/// ```swift
/// let sizes = try Pipeline.load("live.gesture").exportC(to: URL(fileURLWithPath: "out"), prefix: "live")
/// print(sizes.flashBytes, sizes.ramBytes)
/// ```
/// Stages the generator cannot write yet are refused with a ``GestureKitError`` naming the stage;
/// nothing is written then.
public struct CExport: Sendable {
    /// The prefix of every public C name and of the file names (`<prefix>.h`, `<prefix>.c`).
    public var prefix: String
    /// `<prefix>.h`: the state struct, the decision type and the four functions.
    public var header: String
    /// `<prefix>.c`: the weights and the recogniser.
    public var source: String
    /// `stream_main.c`: reads CSV frames on stdin, prints each detection as `gesture stream --json` does.
    public var streamMain: String
    /// Bytes of the constant arrays: weights and thresholds (the class and channel names' strings
    /// are not counted).
    public var flashBytes: Int
    /// Bytes of one `<prefix>_state`.
    public var ramBytes: Int
    /// What ``flashBytes`` would be with ``Weights/float32``: the saving is the difference.
    public var float32FlashBytes: Int
    /// Large arrays left float32 under smaller ``Weights``, each with why (empty for float32).
    public var keptFloat32: [String]

    /// The files and sizes `exportC(to:prefix:weights:)` wrote.
    public struct Written: Sendable {
        /// The paths written, header first.
        public var files: [URL]
        /// Bytes of the constant arrays (see ``CExport/flashBytes``).
        public var flashBytes: Int
        /// Bytes of one state struct.
        public var ramBytes: Int
        /// Flash with ``Weights/float32`` (see ``CExport/float32FlashBytes``).
        public var float32FlashBytes: Int
        /// Large arrays left float32, and why (see ``CExport/keptFloat32``).
        public var keptFloat32: [String]
    }

    /// How the large learned arrays (kNN's examples, DTW's templates, centroids, ridge's and the
    /// LSTM's weights) are stored in flash. Everything else, and all arithmetic, stays float32.
    public enum Weights: String, Sendable, CaseIterable {
        /// Exactly the Swift recogniser's numbers: the C decides as it does.
        case float32 = "f32"
        /// IEEE half floats: half the flash for those arrays, each weight within 2^-11 of itself
        /// (relative); decisions near a boundary may differ.
        case float16 = "f16"
        /// Signed bytes times one float scale per group of weights that share a range (a feature,
        /// a template's channel, a matrix row): a quarter of the flash for those arrays, each weight
        /// within half its group's largest magnitude / 127; decisions near a boundary may differ.
        case int8

        /// Bytes of one stored weight.
        var bytes: Int {
            switch self {
            case .float32: 4
            case .float16: 2
            case .int8: 1
            }
        }
    }

    /// Whether `prefix` can start every C name: a letter, then letters, digits or `_`.
    public static func isValidPrefix(_ prefix: String) -> Bool {
        guard let first = prefix.unicodeScalars.first, first.isASCIILetter else { return false }
        return prefix.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// A prefix made from a file name: non-identifier characters become `_`, and a leading
    /// non-letter gets `g_` before it.
    public static func prefix(forFile path: String) -> String {
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        var s = String(base.unicodeScalars.map { $0.isASCIILetter || ("0"..."9").contains($0) ? Character($0) : "_" })
        if s.isEmpty || !(s.unicodeScalars.first!.isASCIILetter) { s = "g_" + s }
        return s
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

extension Pipeline {
    /// This pipeline as C99 source, in memory.
    /// - Parameter prefix: the prefix of every public C name (see ``CExport/isValidPrefix(_:)``).
    /// - Parameter weights: how the large learned arrays are stored (``CExport/Weights``).
    /// - Throws: when a stage cannot be exported yet (the error names it), or the prefix is not a C name.
    /// - Complexity: O(weights).
    public func cExport(prefix: String, weights: CExport.Weights = .float32) throws -> CExport {
        guard CExport.isValidPrefix(prefix) else {
            throw GestureKitError("\"\(prefix)\" is not a C name (a letter, then letters, digits or _)", field: "prefix")
        }
        var generator = CGenerator(pipeline: self, prefix: prefix, weights: weights)
        return try generator.generate()
    }

    /// Writes `<prefix>.h`, `<prefix>.c` and `stream_main.c` into `directory` (made if missing),
    /// each atomically; nothing is written when the pipeline cannot be exported.
    /// - Returns: the files written and the flash and RAM bytes of the recogniser.
    @discardableResult
    public func exportC(to directory: URL, prefix: String, weights: CExport.Weights = .float32) throws -> CExport.Written {
        let c = try cExport(prefix: prefix, weights: weights)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw GestureKitError("cannot make the folder: \(error.localizedDescription)", file: directory.path)
        }
        let files = [(c.header, "\(prefix).h"), (c.source, "\(prefix).c"), (c.streamMain, "stream_main.c")]
        var urls: [URL] = []
        for (text, name) in files {
            let url = directory.appendingPathComponent(name)
            try writeAtomically(Data(text.utf8), to: url.path)
            urls.append(url)
        }
        return CExport.Written(files: urls, flashBytes: c.flashBytes, ramBytes: c.ramBytes,
                               float32FlashBytes: c.float32FlashBytes, keptFloat32: c.keptFloat32)
    }
}

/// Walks a trained pipeline, stage by stage, into a ``CBuilder``; refuses what it cannot write.
struct CGenerator {
    let pipeline: Pipeline
    let prefix: String
    var b: CBuilder
    /// Whether a post-processor reports events (``Prediction/Event``): the raw decision then carries one.
    var events = false
    /// Whether the classifier spots (DTW): reports can wait for frames, so `<prefix>_flush` exists.
    var spots = false

    init(pipeline: Pipeline, prefix: String, weights: CExport.Weights = .float32) {
        self.pipeline = pipeline
        self.prefix = prefix
        b = CBuilder(prefix: prefix, storage: weights)
    }

    var channels: Int { pipeline.channelCount }
    var classCount: Int { pipeline.classes.count }

    static func refuse(_ why: String, field: String) -> GestureKitError {
        GestureKitError("cannot export to C: \(why)", field: field)
    }

    mutating func generate() throws -> CExport {
        let spec = pipeline.spec
        guard pipeline.decidesLive else {
            throw Self.refuse("the pipeline makes no live decisions (trained before live windows existed; retrain it)", field: "liveWindow")
        }
        b.field(.int64, "frames")
        b.field(.float, "frame", count: channels)
        b.field(.float, "scores", count: classCount)
        var pre: [String] = []
        for (i, stage) in spec.preprocessing.enumerated() {
            pre.append(try preprocessor(stage, index: i))
        }
        let decide = try decider()
        var post: [String] = []
        for (i, stage) in spec.postprocessing.enumerated() {
            post.append(try postprocessor(stage, index: i))
        }
        let weigh = restWeighing()
        b.resetLines.insert("s->frames = 0;", at: 0)
        let header = makeHeader()
        let source = makeSource(pre: pre, decide: decide, weigh: weigh, post: post)
        return CExport(prefix: prefix, header: header, source: source, streamMain: makeStreamMain(),
                       flashBytes: b.flashBytes, ramBytes: b.stateBytes,
                       float32FlashBytes: b.float32FlashBytes, keptFloat32: b.keptFloat32)
    }

    // MARK: the files

    private func makeHeader() -> String {
        let guardName = prefix.uppercased() + "_H"
        let rate = pipeline.sampleRate.map(CBuilder.literal) ?? "0.0"
        return """
            /* \(prefix): a GestureKit pipeline exported to C99 (\(pipeline.spec.classifier.kind), \(classCount) classes).
               Generated by `gesture export`; do not edit. No heap, no globals: one state per stream. */
            #ifndef \(guardName)
            #define \(guardName)

            #include <stdint.h>

            #define \(prefix.uppercased())_CHANNELS \(channels)
            #define \(prefix.uppercased())_CLASSES \(classCount)
            /* Frames per second of the training data (0.0 when unknown). */
            #define \(prefix.uppercased())_SAMPLE_RATE \(rate)

            /* One push's outcome: label is a class index, or -1 when nothing is detected on this frame.
               start and end are the first and last frame (counted from the last reset) the detection covers. */
            typedef struct {
                int32_t label;
                float confidence;
                int64_t start;
                int64_t end;
            } \(prefix)_decision;

            \(b.stateDeclaration)
            /* Prepares a state for a new stream (the same as reset). */
            void \(prefix)_init(\(prefix)_state *s);
            /* Forgets the stream: filter history, windows, post-processing. */
            void \(prefix)_reset(\(prefix)_state *s);
            /* Pushes one frame of \(prefix.uppercased())_CHANNELS values in the pipeline's channel order. A frame holding
               NaN or an infinity is ignored (the state is unchanged), as the Swift recogniser refuses it. */
            \(prefix)_decision \(prefix)_push(\(prefix)_state *s, const float *frame);
            \(spots ? """
            /* The input has ended: the detections still waiting for frames (a spotted gesture too close to
               the end to be final yet), one a call, oldest first; label -1 when none is left. */
            \(prefix)_decision \(prefix)_flush(\(prefix)_state *s);

            """ : "")/* The name of class `label`, or "" when it is not one. */
            const char *\(prefix)_class_name(int32_t label);
            /* The name of channel `channel`, or "" when it is not one. */
            const char *\(prefix)_channel_name(int32_t channel);

            #endif

            """
    }

    private func makeSource(pre: [String], decide: String, weigh: String, post: [String]) -> String {
        let P = prefix.uppercased()
        let classes = pipeline.classes.map(CBuilder.string).joined(separator: ", ")
        let names = pipeline.channelNames.map(CBuilder.string).joined(separator: ", ")
        var s = """
            /* \(prefix): generated by `gesture export` from a trained GestureKit pipeline; do not edit. */
            #include "\(prefix).h"
            #include <math.h>\(b.storage == .float16 ? "\n#include <string.h>" : "")

            /* A raw decision: class (-1: none), confidence, frames covered; its scores are in s->scores.\(events ? """

               ev (-1: none): the class of an event a post-processor reports, its confidence, the frame it began on.
            """ : "") */
            typedef struct {
                int32_t cls;
                float conf;
                int64_t start;
                int64_t end;\(events ? """

                int32_t ev;
                float ev_conf;
                int64_t ev_since;
            """ : "")
            } raw_decision;

            /* A state whose size differs from the one `gesture export` printed fails to compile. */
            typedef char state_size_check[sizeof(\(prefix)_state) == \(b.stateBytes) ? 1 : -1];

            static const char *const class_names[\(P)_CLASSES] = { \(classes) };
            static const char *const channel_names[\(P)_CHANNELS] = { \(names) };


            """
        for c in b.constants { s += c + "\n" }
        for f in b.functions { s += f + "\n" }
        s += """
            void \(prefix)_reset(\(prefix)_state *s) {
            \(b.resetLines.map { "    " + $0 }.joined(separator: "\n"))
            }

            void \(prefix)_init(\(prefix)_state *s) { \(prefix)_reset(s); }

            const char *\(prefix)_class_name(int32_t label) {
                return label >= 0 && label < \(P)_CLASSES ? class_names[label] : "";
            }

            const char *\(prefix)_channel_name(int32_t channel) {
                return channel >= 0 && channel < \(P)_CHANNELS ? channel_names[channel] : "";
            }

            \(prefix)_decision \(prefix)_push(\(prefix)_state *s, const float *frame) {
                \(prefix)_decision out;
                raw_decision d;
                int64_t n;
                int32_t j;
                out.label = -1;
                out.confidence = 0.0f;
                out.start = 0;
                out.end = 0;
                for (j = 0; j < \(P)_CHANNELS; j++) {
                    if (!isfinite(frame[j])) return out;
                }
                n = s->frames++;
                for (j = 0; j < \(P)_CHANNELS; j++) s->frame[j] = frame[j];

            """
        for p in pre { s += "    \(p)\n" }
        s += """
                if (!\(decide)(s, s->frame, n, &d)) return out;

            """
        s += decisionTail(weigh: weigh, post: post)
        if spots {
            s += """

                \(prefix)_decision \(prefix)_flush(\(prefix)_state *s) {
                    \(prefix)_decision out;
                    raw_decision d;
                    const int64_t n = s->frames > 0 ? s->frames - 1 : 0;
                    out.label = -1;
                    out.confidence = 0.0f;
                    out.start = 0;
                    out.end = 0;
                    (void)n;
                    if (!spot_flush(s, &d)) return out;

                """
            s += decisionTail(weigh: weigh, post: post)
        }
        return s
    }

    /// The statements after a raw decision `d` on frame `n`: rest weighing, post-processing, and
    /// `out` filled from the event or the class (``Decision/detection(_:classes:rest:time:)``).
    private func decisionTail(weigh: String, post: [String]) -> String {
        let rest = pipeline.restIndex ?? -1
        var s = ""
        if events { s += "    d.ev = -1;\n" }
        if !weigh.isEmpty { s += "    \(weigh)\n" }
        for p in post { s += "    \(p)\n" }
        if events {
            // Decision.detection: an event is reported over a span as long as the decision's, from
            // the frame it began on.
            s += """
                    if (d.ev >= 0) {
                        out.label = d.ev;
                        out.confidence = d.ev_conf;
                        out.start = (d.ev_since < d.end ? d.ev_since : d.end) - (d.end - d.start);
                        if (out.start < 0) out.start = 0;
                        out.end = d.end;
                        return out;
                    }

                """
        }
        s += """
                if (d.cls < 0 || d.cls == \(rest)) return out;
                out.label = d.cls;
                out.confidence = d.conf;
                out.start = d.start;
                out.end = d.end;
                return out;
            }

            """
        return s
    }

    // MARK: rest weighing

    /// The call that gives the rest class its weight (``Prediction/weighingRest(_:at:)``), or "".
    private mutating func restWeighing() -> String {
        guard let w = pipeline.spec.restWeight, w != 1, let rest = pipeline.restIndex else { return "" }
        b.functions.append("""
            /* The rest class's score times its weight, the scores rescaled to their former total. */
            static void weigh_rest(\(prefix)_state *s, raw_decision *d) {
                float total = 0.0f, after = 0.0f, kept, k;
                int32_t i, best = 0;
                if (d->cls < 0) return;
                for (i = 0; i < \(classCount); i++) total = total + s->scores[i];
                kept = s->scores[\(rest)];
                s->scores[\(rest)] *= \(CBuilder.literal(w));
                for (i = 0; i < \(classCount); i++) after = after + s->scores[i];
                if (!(total > 0.0f) || !(after > 0.0f)) {
                    s->scores[\(rest)] = kept;
                    return;
                }
                k = total / after;
                for (i = 0; i < \(classCount); i++) {
                    s->scores[i] *= k;
                    if (s->scores[i] > s->scores[best]) best = i;
                }
                d->cls = best;
                d->conf = s->scores[best] / total;
            }

            """)
        return "weigh_rest(s, &d);"
    }
}
