import Foundation

/// Records motion frames in memory while an app's "hold to train" button sets a label; frames
/// pushed with no label are the rest between gestures. Gives a ``Dataset`` without files, and the
/// same rows `gesture record` writes when a CSV is wanted.
///
/// ```swift
/// var recorder = GestureRecorder(channelNames: ["ax", "ay", "az"], sampleRate: 50)
/// recorder.label = "circle"        // button pressed
/// try recorder.push(frame)          // every sensor sample
/// recorder.label = nil             // button released: rest
/// let data = recorder.dataset          // train with a spec whose `rest` is "rest"

/// ```
public struct GestureRecorder: Sendable {
    /// The channel names, in the order each pushed frame gives its values.
    public let channelNames: [String]
    /// Frames per second, when known (filters given in Hz need it).
    public let sampleRate: Double?
    /// The label given to frames pushed from now on; `nil` records ``rest``.
    public var label: String?
    /// The class recorded while no label is set (`nil`: such frames are unlabelled, the null class).
    public let rest: String?
    /// Names the recording in the CSV's `session` column.
    public var session: String
    private var values: [Float] = []
    private var labels: [String?] = []

    /// A recorder for frames of `channelNames`.
    /// - Parameters:
    ///   - channelNames: one name per value of a frame.
    ///   - sampleRate: frames per second of the sensor, when known.
    ///   - rest: the class recorded while no label is set (`nil`: unlabelled).
    ///   - session: the name of this recording in the CSV's `session` column.
    public init(channelNames: [String], sampleRate: Double? = nil, rest: String? = "rest", session: String = "app") {
        self.channelNames = channelNames
        self.rest = rest
        self.sampleRate = sampleRate
        self.session = session
    }

    /// Frames recorded so far.
    public var frameCount: Int { labels.count }

    /// Appends one frame under the current ``label``.
    /// - Throws: when the frame's width is not the channel count, or a value is not finite.
    /// - Complexity: amortised O(channels).
    public mutating func push(_ frame: [Float]) throws {
        guard frame.count == channelNames.count else {
            throw GestureKitError("frame has \(frame.count) values, expected \(channelNames.count) (\(channelNames.joined(separator: ",")))", field: "frame")
        }
        guard frame.allSatisfy(\.isFinite) else {
            throw GestureKitError("frame \(labels.count) has a non-finite value", field: "frame")
        }
        values.append(contentsOf: frame)
        labels.append(label ?? rest)
    }

    /// Forgets every frame recorded so far. - Complexity: O(1).
    public mutating func removeAll() {
        values.removeAll(keepingCapacity: true)
        labels.removeAll(keepingCapacity: true)
    }

    /// The frames so far as one continuous recording with per-frame labels. - Complexity: O(values).
    public var recording: Recording {
        Recording(series: TimeSeries(values: values, channelCount: channelNames.count,
                                     channelNames: channelNames, sampleRate: sampleRate),
                  labels: labels, session: session)
    }

    /// Each run of one label as an example, rest runs included (as ``rest``), so a pipeline
    /// trained with `rest` set to the same name learns to stay quiet between gestures.
    /// - Complexity: O(values).
    public var dataset: Dataset {
        let r = recording
        return Dataset(examples: r.segmentExamples(), channelNames: channelNames,
                       sampleRate: sampleRate, recordings: [r], source: session)
    }

    /// The recording as `gesture record` writes it (`session,label,<channels>`, rest = empty label).
    /// - Complexity: O(values).
    public func csv() -> Data { Data(CSVFormat.encode(dataset)) }

    /// Saves the recording to `path` atomically (a reader never sees half a file).
    /// - Throws: ``GestureKitError`` naming the file when it cannot be written.
    /// - Complexity: O(values).
    public func save(to path: String) throws { try CSVFormat.write(dataset, to: path) }
}
