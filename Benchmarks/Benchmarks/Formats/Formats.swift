import Benchmark
import GestureKit

let benchmarks: @Sendable () -> Void = {
}
