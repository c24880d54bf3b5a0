import Foundation
import Testing
@testable import ShelfScanKit

/// The recognition budget: what is read, counted in recognitions, on a spine with nothing
/// legible on it (where every retry is tried).
@Suite("Read budget")
struct ReadBudgetTests {
    /// A mid-gray photo with a speckle of noise, and a standing spine region over its middle.
    static func blankSpine() throws -> (PixImage, TextRegion) {
        var random = SplitMix64(state: 7)
        let (width, height) = (400, 600)
        let pixels = (0..<width * height).map { _ in UInt8(110 + Int(random.next() % 40)) }
        let photo = try PixImage(gray: GrayBytes(width: width, height: height, pixels: pixels))
        let region = TextRegion(layout: .spine, box: BoundingBox(x: 170, y: 20, width: 60, height: 560), lean: 0,
                                typicalThickness: 60, row: 0, index: 0)
        return (photo, region)
    }

    /// Recognitions `region` of `photo` takes with `budget`.
    static func readings(_ region: TextRegion, in photo: PixImage, budget: ReadBudget, first: Bool) async throws -> Int {
        try await offPoolReading { reader, engine in
            reader.budget = budget
            _ = try reader.read(region, in: photo, engine: engine, first: first)
            return budget.readings
        }
    }

    @Test("a spent budget leaves a region its first reading (each way) and nothing more; retries run while it lasts")
    func spentBudget() async throws {
        let (photo, region) = try Self.blankSpine()
        let unlimited = try await Self.readings(region, in: photo, budget: ReadBudget(limit: .max), first: true)
        let spentFirst = try await Self.readings(region, in: photo, budget: ReadBudget(limit: 0), first: true)
        let spentLater = try await Self.readings(region, in: photo, budget: ReadBudget(limit: 0), first: false)
        #expect(spentFirst == region.quarterTurns.count)
        #expect(spentLater == 0)
        #expect(unlimited > spentFirst, "no retry was made on a spine with nothing read: \(unlimited) readings")
    }

    @Test("a scan whose budget is spent from the start still names books from each spine's first reading, none invented")
    func spentScan() async throws {
        let image = "shelves/shelf-1row-english-ttb.jpg"
        var options = ScanOptions()
        options.readBudget = 0
        let scanner = ShelfScanner(options: options, library: try Evaluator.corpusLibrary(directory: Fixtures.sampleImages))
        let result = try await offPool { scanner.scan(path: Fixtures.sample(image)) }
        let found = Set(result.books.compactMap { $0.title.map(TitleKey.of) })
        #expect(result.error == nil)
        #expect(!found.isEmpty)
        #expect(found.isSubset(of: try TextPipelineTests.labelled(image)), "\(found)")
    }

    @Test("the budget is counted in CPU time, seconds times workers; SHELFSCAN_READ_BUDGET sets it or turns it off")
    func budgetSetting() {
        let budget = ReadBudget(seconds: 1.5, workers: 2)
        #expect(budget.limit == 3_000_000_000)
        #expect(!budget.isSpent)
        budget.charge(2_999_999_999)
        #expect(!budget.isSpent && budget.readings == 1)
        budget.charge(1)
        #expect(budget.isSpent && budget.used == 3_000_000_000 && budget.readings == 2)
        #expect(ReadBudget.seconds(from: [:], fallback: 4) == 4)
        #expect(ReadBudget.seconds(from: ["SHELFSCAN_READ_BUDGET": "off"], fallback: 4) == nil)
        #expect(ReadBudget.seconds(from: ["SHELFSCAN_READ_BUDGET": "2.5"], fallback: nil) == 2.5)
        #expect(ReadBudget.seconds(from: ["SHELFSCAN_READ_BUDGET": "soon"], fallback: 4) == 4)
        #expect(ReadBudget.seconds(from: ["SHELFSCAN_READ_BUDGET": "-1"], fallback: nil) == 0)
        // A thread's CPU time moves only as it works.
        let before = ReadBudget.threadCPU()
        var x = 0.0
        for i in 0..<2_000_000 { x += Double(i).squareRoot() }
        #expect(x > 0 && ReadBudget.threadCPU() > before)
    }
}

/// The title matcher built on a thread of its own while a photo is read.
@Suite("Pending matcher")
struct PendingMatcherTests {
    @Test("every caller gets the one matcher built, however many wait for it")
    func built() async throws {
        let pending = PendingMatcher(building: { () throws(ShelfScanError) -> BookMatcher in
            BookMatcher(books: [Book(title: "The Odyssey", authors: ["Homer"]), Book(title: "Persuasion", authors: ["Jane Austen"])])
        })
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { try await offPool { try pending.get().count } } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == [2, 2, 2, 2])
        #expect(try pending.get() === pending.get())
    }

    @Test("a matcher that could not be built is an error for every caller, not an empty matcher")
    func failed() throws {
        let pending = PendingMatcher(building: { () throws(ShelfScanError) -> BookMatcher in
            throw ShelfScanError(.database, "library.sqlite: not a database")
        })
        for _ in 0..<2 {
            #expect(throws: ShelfScanError.self) { try pending.get() }
        }
        #expect(pending.failed)
        #expect(!PendingMatcher(BookMatcher(books: [])).failed)
    }
}
