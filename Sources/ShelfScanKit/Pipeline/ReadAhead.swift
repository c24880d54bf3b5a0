import Foundation

/// Readings of a later pass started early, on a thread of their own, while the passes before
/// it run: those passes read a few spines each and leave a core idle between their last
/// readings and the matching after them, and the pass after them (the second model's) waits
/// on one spine read six or seven times while the other worker idles.
///
/// Regions are taken from a queue one at a time by whoever reads: the thread started by
/// `init`, and, once the pass is due, every worker of the pass (`results(for:)`), which first
/// drops the regions no longer wanted and adds the ones wanted but not queued. What a region
/// reads does not depend on when it is read (`read` is given the region alone), so the pass
/// returns what it would have read in its turn; only the photo's direction votes may be fewer.
///
/// `@unchecked Sendable`: `queue`, `running`, `taken`, `done` and `stopped` are only touched under `lock`.
final class ReadAhead: @unchecked Sendable {
    typealias Read = @Sendable (TextRegion, TesseractEngine) throws(ShelfScanError) -> [ReadLine]

    private let lock = NSCondition()
    private var queue: [Int]
    private var running = 0
    /// Regions taken from the queue, read or being read.
    private var taken: Set<Int> = []
    private var done: [Int: Result<[ReadLine], ShelfScanError>] = [:]
    private var stopped = false
    private let regions: [TextRegion]
    private let pool: OCRWorkers
    private let read: Read

    /// Starts reading `picked` (indices into `regions`) by `read` with engines of `pool`.
    init(_ picked: [Int], of regions: [TextRegion], with pool: OCRWorkers, read: @escaping Read) {
        queue = picked
        self.regions = regions
        self.pool = pool
        self.read = read
        let thread = Thread { [self] in work() }
        // Tesseract's layout analysis recurses: the same stack as the pool's threads.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Takes queued regions and reads them until none is left.
    private func work() {
        while let r = take() {
            let outcome = Result<[ReadLine], ShelfScanError> { () throws(ShelfScanError) -> [ReadLine] in
                try pool.withEngine { engine throws(ShelfScanError) in try read(regions[r], engine) }
            }
            lock.lock()
            done[r] = outcome
            running -= 1
            lock.broadcast()
            lock.unlock()
        }
    }

    private func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped, !queue.isEmpty else { return nil }
        running += 1
        let r = queue.removeFirst()
        taken.insert(r)
        return r
    }

    /// What `picked` read, in its order: the queue is cut to `picked`, the regions missing from
    /// it are added, and `workers` threads read alongside the early one until all are read.
    func results(for picked: [Int], workers: Int) throws(ShelfScanError) -> [[ReadLine]] {
        lock.lock()
        let wanted = Set(picked)
        queue = queue.filter { wanted.contains($0) }
        let known = Set(queue).union(taken)
        queue += picked.filter { !known.contains($0) }
        // Regions being read now that are no longer wanted are waited for all the same: their
        // engines are needed.
        lock.unlock()
        DispatchQueue.concurrentPerform(iterations: max(1, workers)) { _ in work() }
        lock.lock()
        // The queue is empty once the workers return; the early thread may still be reading.
        while running > 0 { lock.wait() }
        let outcomes = picked.map { done[$0] }
        lock.unlock()
        var lines: [[ReadLine]] = []
        for outcome in outcomes {
            switch outcome {
            case .success(let l)?: lines.append(l)
            case .failure(let e)?: throw e
            case nil: lines.append([])
            }
        }
        return lines
    }

    /// Stops taking regions and waits for the ones being read (their engines are the pool's).
    func stop() {
        lock.lock()
        stopped = true
        queue = []
        while running > 0 { lock.wait() }
        lock.unlock()
    }
}
