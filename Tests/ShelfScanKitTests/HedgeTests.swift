import Foundation
import Testing
@testable import ShelfScanKit

/// Regions read in a photo's losing orientation as a hedge (`TextRegion.hedge`).
@Suite("Hedge regions")
struct HedgeTests {
    @Test("a hedge with nothing read on it gets its first reading only; the same region as a spine is retried")
    func hedgeReadOnce() async throws {
        let (photo, region) = try ReadBudgetTests.blankSpine()
        var hedge = region
        hedge.hedge = true
        let plain = try await ReadBudgetTests.readings(region, in: photo, budget: ReadBudget(limit: .max), first: true)
        let once = try await ReadBudgetTests.readings(hedge, in: photo, budget: ReadBudget(limit: .max), first: true)
        #expect(once == hedge.quarterTurns.count)
        #expect(plain > once, "no retry was made on the plain region: \(plain) readings")
    }

    /// Recognitions `region` of `photo` takes, with `watch`.
    static func readings(_ region: TextRegion, in photo: PixImage, watch: HedgeWatch) async throws -> Int {
        try await offPoolReading { reader, engine in
            let budget = ReadBudget(limit: .max)
            reader.budget = budget
            _ = try reader.read(region, in: photo, engine: engine, first: true, hedges: watch)
            return budget.readings
        }
    }

    @Test("once a hedge has held a word, the other hedges of its row are read in full, other rows' still once; those read once before are remembered")
    func watch() async throws {
        let (photo, spine) = try ReadBudgetTests.blankSpine()
        func hedge(_ index: Int, row: Int = 1000) -> TextRegion {
            var r = TextRegion(layout: spine.layout, box: spine.box, lean: 0, typicalThickness: spine.typicalThickness, row: row, index: index)
            r.hedge = true
            return r
        }
        let watch = HedgeWatch()
        let early = try await Self.readings(hedge(0), in: photo, watch: watch)
        #expect(early == spine.quarterTurns.count && watch.wasReadOnce(hedge(0)) && !watch.held)
        watch.hold(row: 1000)
        let late = try await Self.readings(hedge(1), in: photo, watch: watch)
        #expect(late > early, "a hedge read after its row held was not retried: \(late) readings")
        #expect(watch.held && watch.holds(row: 1000) && watch.wasReadOnce(hedge(0)) && !watch.wasReadOnce(hedge(1)))
        // Another band of the losing orientation has held nothing: its hedges are still read once.
        let elsewhere = try await Self.readings(hedge(0, row: 1001), in: photo, watch: watch)
        #expect(elsewhere == early && !watch.holds(row: 1001) && watch.wasReadOnce(hedge(0, row: 1001)))
    }

    /// A line on the middle of `region` (so on its spine), read at `confidence`.
    static func line(_ text: String, _ confidence: Double, on region: TextRegion) -> ReadLine {
        ReadLine(text: text, confidence: confidence,
                 box: BoundingBox(x: region.box.x + region.box.width / 2 - 5, y: region.box.y + 40, width: 10, height: 200),
                 textHeight: 10, quarterTurns: 1)
    }

    @Test("a hedge holds books when a line on it was read surely with a word of four letters or more",
          arguments: [
              (["Strategy"], [96.0], true),
              (["Love"], [91.0], true),
              (["Ti", "2 Ag", "pe"], [90.0, 83.0, 81.0], false),  // stripes and edges read as letters
              (["Strategy"], [70.0], false),                         // not sure
              (["THE SPRINGTIME"], [95.0], true),
          ])
    func confirms(texts: [String], confidences: [Double], held: Bool) throws {
        let (_, spine) = try ReadBudgetTests.blankSpine()
        var region = spine
        region.band = Double(region.box.x)...Double(region.box.x + region.box.width)
        let lines = zip(texts, confidences).map { Self.line($0, $1, on: region) }
        #expect(RegionReader().confirms(lines, on: region) == held)
        // A sure word on a neighbour's sliver (outside the band) holds nothing.
        let beside = lines.map { l in
            ReadLine(text: l.text, confidence: l.confidence, box: BoundingBox(x: region.box.x - 40, y: l.box.y, width: 10, height: 200),
                     textHeight: 10, quarterTurns: 1)
        }
        #expect(!RegionReader().confirms(beside, on: region))
    }
}
