import Foundation

/// The next retry pass read ahead, on the engines the pass being read leaves idle.
///
/// A pass over the unnamed spines reads a dozen spines on both cores; once the last of them is
/// taken, one core reads it while the other waits, and both wait while the photo is matched
/// again. The 12 MP shelf spent a quarter of its passes' time so (948 ms of one core idle in
/// 3.3 s of reading). Meanwhile the pass after it is read here, on the spines it would read
/// were the photo matched now, with what it would take from the photo now.
///
/// Nothing read ahead changes a result: when the pass after comes, a spine's reading ahead is
/// taken only if that pass reads the spine, with the same lines read on it before
/// (`Reading.before`) and the same inputs taken from the photo (`Reading.key`: the direction
/// votes' answer for it, the named lines' boxes...); otherwise the pass reads it in its turn.
/// Readings start only once the current pass has handed out all its spines (`openUp`) and only
/// on an engine nobody holds (`OCRWorkers.borrowIdle`), while no other photo is being scanned
/// with the engines (`OCRWorkers.oneAtATime`: a batch's other photo keeps the cores busy, and
/// readings ahead that the pass after does not take would only slow it). Once the pass after
/// is due (`claim`), its spines still being read ahead are waited for at its end (`wait`), the
/// others read.
///
/// `@unchecked Sendable`: every stored property but the constants is only touched under `lock`.
final class PassAhead: @unchecked Sendable {
    typealias Read = @Sendable (TextRegion, [ReadLine], TesseractEngine) throws(ShelfScanError) -> [ReadLine]

    /// A region read ahead: the lines read on it before, the pass's inputs for it, what it read.
    struct Reading: Sendable {
        let before: [ReadLine]
        let key: [Int]
        let lines: [ReadLine]
    }

    /// A region to read ahead. `lines`: its lines before the pass being read; `waits`: that
    /// pass reads it too, so its reading ahead waits for that pass's reading (`note`).
    struct Spine {
        let region: Int
        let key: [Int]
        let lines: [ReadLine]
        let waits: Bool
    }

    private let lock = NSCondition()
    private let regions: [TextRegion]
    private let pool: OCRWorkers
    /// The pass planned, its reading, its regions not yet taken, and how the pass being read adds lines.
    private var pass = -1
    private var read: Read?
    private var tasks: [Spine] = []
    private var keepingBest = false
    /// What the pass being read read, by region.
    private var current: [Int: [ReadLine]] = [:]
    /// Readings ahead by pass, then region; and the ones under way, as (pass, region).
    private var done: [Int: [Int: Reading]] = [:]
    private var running: [(pass: Int, region: Int)] = []
    private var open = false
    private var stopped = false
    private var threads = 0

    init(regions: [TextRegion], pool: OCRWorkers) {
        self.regions = regions
        self.pool = pool
        for _ in 0..<pool.size {
            let thread = Thread { [self] in work() }
            // Tesseract's layout analysis recurses: the same stack as the pool's threads.
            thread.stackSize = 8 << 20
            threads += 1
            thread.start()
        }
    }

    /// Reads `tasks` by `read` ahead for the pass numbered `pass`, once the pass being read
    /// (whose readings are added `keepingBest` or not, as `TextStage.readAgain` does) has
    /// handed out its spines (`openUp`).
    func plan(pass: Int, read: @escaping Read, tasks: [Spine], keepingBest: Bool) {
        lock.lock()
        self.pass = pass
        self.read = read
        self.tasks = tasks
        self.keepingBest = keepingBest
        current = [:]
        open = false
        lock.unlock()
    }

    /// What the pass being read read on region `r`.
    func note(_ r: Int, _ lines: [ReadLine]) {
        lock.lock()
        current[r] = lines
        lock.broadcast()
        lock.unlock()
    }

    /// The pass being read has handed out all its spines: idle engines may read ahead.
    func openUp() {
        lock.lock()
        open = true
        lock.broadcast()
        lock.unlock()
    }

    /// The pass numbered `pass` is due: nothing more is started for it. What was read ahead for
    /// it, and the regions still being read for it (`wait`).
    func claim(_ pass: Int) -> (done: [Int: Reading], pending: [Int]) {
        lock.lock()
        defer { lock.unlock() }
        if self.pass == pass { tasks = [] }
        open = false
        let readings = done.removeValue(forKey: pass) ?? [:]
        return (readings, running.filter { $0.pass == pass }.map(\.region))
    }

    /// Waits for the readings ahead under way for the pass numbered `pass`, and returns them.
    func wait(for pass: Int) -> [Int: Reading] {
        lock.lock()
        defer { lock.unlock() }
        while running.contains(where: { $0.pass == pass }) { lock.wait() }
        return done.removeValue(forKey: pass) ?? [:]
    }

    /// Stops reading ahead for good; the threads end once their readings are done.
    func stop() {
        lock.lock()
        stopped = true
        tasks = []
        lock.broadcast()
        while threads > 0 { lock.wait() }
        lock.unlock()
    }

    private func work() {
        lock.lock()
        while !stopped {
            if open, let k = tasks.firstIndex(where: { !$0.waits || current[$0.region] != nil }), let read,
               pool.oneAtATime, let engine = pool.borrowIdle() {
                let task = tasks.remove(at: k)
                let before: [ReadLine] = if task.waits, let added = current[task.region] {
                    keepingBest ? RegionReader.keepBest(task.lines + added) : task.lines + added
                } else {
                    task.lines
                }
                let pass = self.pass
                running.append((pass, task.region))
                lock.unlock()
                let outcome = Result<[ReadLine], ShelfScanError> { () throws(ShelfScanError) -> [ReadLine] in
                    try read(regions[task.region], before, engine)
                }
                pool.giveBack(engine)
                lock.lock()
                running.removeAll { $0.pass == pass && $0.region == task.region }
                // A reading that failed is read again in the pass's turn (and fails there).
                if case .success(let lines) = outcome {
                    done[pass, default: [:]][task.region] = Reading(before: before, key: task.key, lines: lines)
                }
                lock.broadcast()
                continue
            }
            // A spine ready but no engine idle (engines are handed back without a signal here):
            // look again shortly. Otherwise `openUp`, `note` or `stop` wakes the threads (while
            // another photo is scanned, the next pass's).
            if open, pool.oneAtATime, tasks.contains(where: { !$0.waits || current[$0.region] != nil }) {
                _ = lock.wait(until: Date(timeIntervalSinceNow: 0.002))
            } else {
                lock.wait()
            }
        }
        threads -= 1
        lock.broadcast()
        lock.unlock()
    }
}
