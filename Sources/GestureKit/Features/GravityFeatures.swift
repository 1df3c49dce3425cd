import Foundation

/// One value of a window's gravity / body-motion description (see ``GravityFeatures``).
public enum GravityFeature: String, Sendable, Codable, CaseIterable {
    /// Unit gravity direction in device axes (the window mean of acceleration, normalised).
    case directionX, directionY, directionZ
    /// Tilt angles of the gravity direction, radians: `pitch = atan2(-gx, sqrt(gy^2 + gz^2))`,
    /// `roll = atan2(gy, gz)`.
    case pitch, roll
    /// Length of the mean acceleration (about 1 g at rest; smaller while the device swings).
    case gravityMagnitude
    /// Body acceleration `b = a - gravity`, per frame magnitude `|b|`: mean, population std, max.
    case bodyMean, bodyStd, bodyMax
    /// Body acceleration along gravity (`b . g/|g|`): population std (its mean is 0 by construction).
    case verticalStd
    /// Body acceleration across gravity (`|b - (b . u) u|`): mean and population std.
    case horizontalMean, horizontalStd
    /// Gyroscope magnitude `|w|` per frame: mean, population std, max (needs `gyroscope`).
    case gyroMean, gyroStd, gyroMax

    var needsGyroscope: Bool { self == .gyroMean || self == .gyroStd || self == .gyroMax }
}

/// Gravity and body acceleration separated, for activities that must hold across people.
///
/// Gravity is estimated as the window mean of the accelerometer channels (a low-pass with the
/// window as its support); what is left per frame is body acceleration. The direction of gravity in
/// device axes tells postures apart (sitting, standing and laying tilt a worn phone differently,
/// whoever wears it), and magnitudes of body acceleration and rotation (orientation-free) tell
/// movements apart without depending on how each person holds or wears the device.
///
/// JSON: `{"kind": "gravity", "accelerometer": [0, 1, 2], "gyroscope": [3, 4, 5]}`. Keys:
/// `accelerometer` (3 channel indices, x y z; default `[0, 1, 2]`); `gyroscope` (3 channel
/// indices or `[]`, default `[]`: no gyroscope); `features` (any of ``GravityFeature``'s names;
/// default all of them, without the gyro ones when there is no gyroscope); `channelNames` (learned
/// by `fit`: it fixes the channel count). Units are those of the input (HAPT: g and rad/s).
///
/// Output layout: in the order of `features`, named `gravity.NAME`. An empty window gives zeros; a
/// zero mean acceleration gives a zero direction (no NaN).
/// - Complexity: O(frames), two passes, Double accumulation, no allocation.
public struct GravityFeatures: FeatureExtractor {
    public static let kind = "gravity"

    /// Channel indices of the accelerometer's x, y and z.
    public var accelerometer: [Int]
    /// Channel indices of the gyroscope's x, y and z (empty: none).
    public var gyroscope: [Int]
    /// The features computed, in output order.
    public var features: [GravityFeature]
    /// Input channel names, when known.
    public private(set) var channelNames: [String]?

    /// Every feature, without the gyroscope ones when there is no gyroscope.
    public static func defaultFeatures(gyroscope: Bool) -> [GravityFeature] {
        GravityFeature.allCases.filter { gyroscope || !$0.needsGyroscope }
    }

    /// A gravity extractor; `features` defaults to ``defaultFeatures(gyroscope:)``.
    public init(accelerometer: [Int] = [0, 1, 2], gyroscope: [Int] = [], features: [GravityFeature]? = nil,
                channelNames: [String]? = nil) {
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.features = features ?? Self.defaultFeatures(gyroscope: !gyroscope.isEmpty)
        self.channelNames = channelNames
    }

    enum CodingKeys: String, CodingKey { case accelerometer, gyroscope, features, channelNames }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        accelerometer = try c.decodeIfPresent([Int].self, forKey: .accelerometer) ?? [0, 1, 2]
        gyroscope = try c.decodeIfPresent([Int].self, forKey: .gyroscope) ?? []
        if let names = try c.decodeIfPresent([String].self, forKey: .features) {
            features = try names.map { name in
                guard let f = GravityFeature(rawValue: name) else {
                    let known = GravityFeature.allCases.map(\.rawValue).joined(separator: ", ")
                    throw GestureKitError("unknown feature \"\(name)\" (known: \(known))", field: "features")
                }
                return f
            }
        } else {
            features = Self.defaultFeatures(gyroscope: !gyroscope.isEmpty)
        }
        channelNames = try c.decodeIfPresent([String].self, forKey: .channelNames)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(accelerometer, forKey: .accelerometer)
        try c.encode(gyroscope, forKey: .gyroscope)
        try c.encode(features.map(\.rawValue), forKey: .features)
        try c.encodeIfPresent(channelNames, forKey: .channelNames)
    }

    public func validate() throws {
        try Self.checkAxes(accelerometer, field: "accelerometer", optional: false, channels: channelNames?.count)
        try Self.checkAxes(gyroscope, field: "gyroscope", optional: true, channels: channelNames?.count)
        if features.isEmpty { throw GestureKitError("choose at least one feature", field: "features") }
        if gyroscope.isEmpty, let f = features.first(where: \.needsGyroscope) {
            throw GestureKitError("\(f.rawValue) needs the gyroscope channels", field: "gyroscope")
        }
        if let n = channelNames, n.isEmpty { throw GestureKitError("no channels", field: "channelNames") }
    }

    static func checkAxes(_ axes: [Int], field: String, optional: Bool, channels: Int?) throws {
        if optional && axes.isEmpty { return }
        guard axes.count == 3 else {
            throw GestureKitError("expected 3 channel indices (x, y, z)\(optional ? " or none" : ""), found \(axes.count)", field: field)
        }
        guard Set(axes).count == 3 else { throw GestureKitError("channel indices must differ", field: field) }
        for a in axes where a < 0 || (channels.map { a >= $0 } ?? false) {
            throw GestureKitError("channel index \(a) out of range 0..<\(channels ?? 0)", field: field)
        }
    }

    public mutating func fit(_ windows: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        channelNames = FeatureSupport.names(windows, channels: channels)
        try validate()
    }

    public var featureCount: Int { channelNames == nil ? 0 : features.count }

    public var featureNames: [String] {
        channelNames == nil ? [] : features.map { "gravity.\($0.rawValue)" }
    }

    public func extract(_ window: UnsafeBufferPointer<Float>, frames n: Int, into out: UnsafeMutableBufferPointer<Float>) {
        let c = channelNames?.count ?? 0
        let k = featureCount
        precondition(out.count >= k && window.count >= n * c, "gravity: buffer sizes do not match")
        guard k > 0 else { return }
        guard n > 0 else {
            for i in 0..<k { out[i] = 0 }
            return
        }
        let ax = accelerometer[0], ay = accelerometer[1], az = accelerometer[2]
        // Pass 1: gravity = mean acceleration.
        var mx = 0.0, my = 0.0, mz = 0.0
        for i in 0..<n {
            mx += Double(window[i * c + ax]); my += Double(window[i * c + ay]); mz += Double(window[i * c + az])
        }
        mx /= Double(n); my /= Double(n); mz /= Double(n)
        let g = (mx * mx + my * my + mz * mz).squareRoot()
        // A zero (or non-finite) mean has no direction: report 0 rather than divide by it.
        let inv = g > 0 && g.isFinite ? 1 / g : 0
        let ux = mx * inv, uy = my * inv, uz = mz * inv
        // Pass 2: body acceleration and gyro magnitude; sums of values and squares (Double keeps the
        // variance formula exact enough at these window lengths).
        var bSum = 0.0, bSq = 0.0, bMax = 0.0, vSq = 0.0, hSum = 0.0, hSq = 0.0
        var wSum = 0.0, wSq = 0.0, wMax = 0.0
        let hasGyro = gyroscope.count == 3
        let gx = hasGyro ? gyroscope[0] : 0, gy = hasGyro ? gyroscope[1] : 0, gz = hasGyro ? gyroscope[2] : 0
        for i in 0..<n {
            let bx = Double(window[i * c + ax]) - mx, by = Double(window[i * c + ay]) - my, bz = Double(window[i * c + az]) - mz
            let b2 = bx * bx + by * by + bz * bz
            let b = b2.squareRoot()
            bSum += b; bSq += b2; bMax = Swift.max(bMax, b)
            let v = bx * ux + by * uy + bz * uz
            vSq += v * v
            let h = Swift.max(b2 - v * v, 0).squareRoot()
            hSum += h; hSq += h * h
            if hasGyro {
                let wx = Double(window[i * c + gx]), wy = Double(window[i * c + gy]), wz = Double(window[i * c + gz])
                let w2 = wx * wx + wy * wy + wz * wz
                let w = w2.squareRoot()
                wSum += w; wSq += w2; wMax = Swift.max(wMax, w)
            }
        }
        let dn = Double(n)
        func std(_ sum: Double, _ sq: Double) -> Double { Swift.max(sq / dn - (sum / dn) * (sum / dn), 0).squareRoot() }
        for (i, f) in features.enumerated() {
            let value: Double
            switch f {
            case .directionX: value = ux
            case .directionY: value = uy
            case .directionZ: value = uz
            case .pitch: value = inv > 0 ? atan2(-ux, (uy * uy + uz * uz).squareRoot()) : 0
            case .roll: value = inv > 0 ? atan2(uy, uz) : 0
            case .gravityMagnitude: value = g
            case .bodyMean: value = bSum / dn
            case .bodyStd: value = std(bSum, bSq)
            case .bodyMax: value = bMax
            case .verticalStd: value = (vSq / dn).squareRoot()
            case .horizontalMean: value = hSum / dn
            case .horizontalStd: value = std(hSum, hSq)
            case .gyroMean: value = wSum / dn
            case .gyroStd: value = std(wSum, wSq)
            case .gyroMax: value = wMax
            }
            out[i] = Float(value)
        }
    }
}
