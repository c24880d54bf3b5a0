import Foundation

/// The recognition time one image may spend on readings beyond the first: once its readings
/// have used `limit` nanoseconds of CPU on the threads reading it, every retry and later pass
/// is skipped, and only first readings (one global reading of each region, each way it may
/// read) still run. Counted in the reading threads' own CPU time, not wall time, so that an
/// image read beside another (`eval`, a batch) gets the same readings as one read alone.
///
/// Off by default (`ScanOptions.readBudget`): it costs books on the photos that take long.
/// Without it a real phone photo of a shelf takes 3 to 30 s on two cores (spines whose letters
/// are too small to read are retried six or eight ways each, then read again by every later
/// pass); with it the time is bounded whatever the photo holds.
///
/// `@unchecked Sendable`: `spent` is only touched under `lock`.
public final class ReadBudget: @unchecked Sendable {
    /// CPU nanoseconds the readings may use.
    public let limit: UInt64
    private let lock = NSLock()
    private var spent: UInt64 = 0
    private var count = 0

    public init(limit: UInt64) {
        self.limit = limit
    }

    /// `seconds` of wall time on each of `workers` reading threads.
    public convenience init(seconds: Double, workers: Int) {
        self.init(limit: UInt64(max(0, seconds) * Double(max(1, workers)) * 1e9))
    }

    /// Whether the readings have used the whole budget.
    public var isSpent: Bool {
        lock.lock()
        defer { lock.unlock() }
        return spent >= limit
    }

    /// CPU nanoseconds used so far.
    public var used: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return spent
    }

    /// Recognitions charged so far.
    public var readings: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    /// One recognition's CPU time.
    func charge(_ nanoseconds: UInt64) {
        lock.lock()
        spent += nanoseconds
        count += 1
        lock.unlock()
    }

    /// The calling thread's CPU time, nanoseconds (Tesseract reads on the calling thread:
    /// its OpenMP is kept to it, `shelfscan_openmp_serial`).
    static func threadCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Seconds per reading thread from `SHELFSCAN_READ_BUDGET` (`off`: no budget); `fallback`
    /// when unset or not a number.
    static func seconds(from environment: [String: String], fallback: Double?) -> Double? {
        guard let value = environment["SHELFSCAN_READ_BUDGET"] else { return fallback }
        if value == "off" { return nil }
        return Double(value).map { max(0, $0) } ?? fallback
    }
}
