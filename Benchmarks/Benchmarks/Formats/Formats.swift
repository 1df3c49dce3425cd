import Benchmark
import Foundation
import GestureKit

/// Reading a 1,000,000-row x 8-channel recording CSV (plus session and label columns, ~87 MB).
/// The file is generated once into a temporary folder with the same generator as
/// Benchmarks/peers/csv_peer.py, which times pandas.read_csv on it for the ratio.
/// Run: cd Benchmarks && swift package benchmark --target Formats
let benchmarks: @Sendable () -> Void = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("gesturekit-bench-1M-8.csv").path
    if !FileManager.default.fileExists(atPath: path) { generateCSV(path, rows: 1_000_000) }

    let config = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 7)

    Benchmark("CSV 1M x 8: CSVFormat.readRecordings", configuration: config) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try CSVFormat.readRecordings(path))
        }
    }

    Benchmark("CSV 1M x 8: Dataset.load (recordings cut into segments)", configuration: config) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try Dataset.load(path))
        }
    }
}

/// `session,label,ch0..ch7`: sessions of 100,000 rows, labels change every 500 rows (one in five
/// empty = null), values in [-20, 20] with 6 decimals from an integer hash, so Python writes the
/// same bytes (see csv_peer.py `generate`).
func generateCSV(_ path: String, rows: Int) {
    let labels = ["rest", "walk", "wave", "", "shake"]
    var out: [UInt8] = []
    out.reserveCapacity(rows * 90)
    out.append(contentsOf: "session,label,ch0,ch1,ch2,ch3,ch4,ch5,ch6,ch7\n".utf8)
    for i in 0..<rows {
        out.append(contentsOf: "s\(i / 100_000),\(labels[(i / 500) % labels.count])".utf8)
        for c in 0..<8 {
            let h = (UInt64(i * 8 + c) &* 2_654_435_761) & 0xFFFF_FFFF
            let v = Int(h % 40_000_001) - 20_000_000
            let a = abs(v)
            let frac = String(a % 1_000_000)
            out.append(contentsOf: ",\(v < 0 ? "-" : "")\(a / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)".utf8)
        }
        out.append(10)
    }
    _ = FileManager.default.createFile(atPath: path, contents: Data(out))
}
