import Foundation
import Testing
@testable import ShelfScanKit

@Suite("Lines of letters across a standing spine")
struct AcrossLinesTests {
    /// A 120 px band, 900 high: an author's name in big letters along it (turned: each letter a
    /// box of its own, one above the next), and whatever `across` adds.
    static let width = 120, height = 900
    static func spine(across: [BoundingBox]) -> [BoundingBox] {
        // "STEPHEN" along the spine: seven letters 50 px across the band, 40 along it.
        let along = (0..<7).map { BoundingBox(x: 35, y: 40 + $0 * 46, width: 50, height: 40) }
        return along + across
    }

    @Test("a title stacked across the spine (\"LISEY'S / STORY\") is two lines, top to bottom, beside the name along it")
    func stackedTitle() {
        let lisey = SetLine.boxes("LISEYS", x: 22, baseline: 420, xHeight: 12)
        let story = SetLine.boxes("STORY", x: 28, baseline: 450, xHeight: 12)
        let lines = RegionReader.acrossLineBoxes(Self.spine(across: lisey + story), width: Self.width, height: Self.height)
            .sorted { $0.box.y < $1.box.y }
        #expect(lines.map(\.letters) == [6, 5], "\(lines)")
        #expect(lines.first.map { $0.box.y >= 400 && $0.box.y + $0.box.height <= 425 } == true, "\(lines)")
        #expect(lines.first.map { $0.size == 18 } == true, "capitals 1.5 x-heights high: \(lines)")
    }

    @Test("letters along the spine alone make no line across it")
    func alongOnly() {
        #expect(RegionReader.acrossLineBoxes(Self.spine(across: []), width: Self.width, height: Self.height).isEmpty)
        // Smaller letters along a thin line of the spine, each below the last: no run either.
        let small = (0..<12).map { BoundingBox(x: 50, y: 500 + $0 * 16, width: 14, height: 12) }
        #expect(RegionReader.acrossLineBoxes(small, width: Self.width, height: Self.height).isEmpty)
    }

    @Test("two letters, specks of mixed sizes and levels, and letters too big for the band make no line")
    func notLines() {
        let two = SetLine.boxes("IT", x: 40, baseline: 600, xHeight: 14)
        #expect(RegionReader.acrossLineBoxes(two, width: Self.width, height: Self.height).isEmpty)
        let specks = [BoundingBox(x: 10, y: 700, width: 6, height: 6), BoundingBox(x: 20, y: 690, width: 10, height: 20),
                      BoundingBox(x: 34, y: 712, width: 5, height: 7), BoundingBox(x: 44, y: 696, width: 12, height: 24)]
        #expect(RegionReader.acrossLineBoxes(specks, width: Self.width, height: Self.height).isEmpty)
        // Capitals 60 px high across a 120 px band: a picture, or letters along the spine.
        let big = SetLine.boxes("CELL", x: 0, baseline: 300, xHeight: 40)
        #expect(RegionReader.acrossLineBoxes(big, width: Self.width, height: Self.height).isEmpty)
    }

    @Test("a word space keeps a line whole; a gap wider than a letter splits it")
    func gaps() {
        let words = SetLine.boxes("THE SHINING", x: 4, baseline: 500, xHeight: 8)
        let one = RegionReader.acrossLineBoxes(words, width: Self.width, height: Self.height)
        #expect(one.map(\.letters) == [10], "\(one)")
        let apart = SetLine.boxes("ABC", x: 2, baseline: 500, xHeight: 8) + SetLine.boxes("DEF", x: 80, baseline: 500, xHeight: 8)
        #expect(RegionReader.acrossLineBoxes(apart, width: Self.width, height: Self.height).map(\.letters) == [3, 3])
    }

    @Test("small letters run together count as the letters they are wide; a rule from side to side of the band is no line")
    func mergedAndRules() {
        // "Carrie" in two shapes of three letters each (18 px high, 36 wide), centred on the band.
        let carrie = [BoundingBox(x: 22, y: 600, width: 36, height: 18), BoundingBox(x: 60, y: 600, width: 36, height: 18)]
        #expect(RegionReader.acrossLineBoxes(carrie, width: Self.width, height: Self.height).map(\.letters) == [6])
        // One shape four letters wide holds a word; one two letters wide does not.
        let word = [BoundingBox(x: 30, y: 650, width: 52, height: 18)]
        #expect(RegionReader.acrossLineBoxes(word, width: Self.width, height: Self.height).map(\.letters) == [4])
        let short = [BoundingBox(x: 40, y: 650, width: 26, height: 18)]
        #expect(RegionReader.acrossLineBoxes(short, width: Self.width, height: Self.height).isEmpty)
        // A stripe printed across the spine, edge to edge, in pieces or whole.
        let stripe = [BoundingBox(x: 0, y: 100, width: 60, height: 12), BoundingBox(x: 61, y: 100, width: 59, height: 12)]
        #expect(RegionReader.acrossLineBoxes(stripe, width: Self.width, height: Self.height).isEmpty)
    }

    /// The lines `readAcross` reads on the first standing spine region of `photo` covering column `x`.
    static func across(_ photo: PixImage, x: Int) async throws -> (TextRegion, [ReadLine]) {
        let regions = try await offPool { try SpineFinder().spines(in: photo).regions }
        let region = try #require(regions.first { r in r.layout == .spine && r.box.x <= x && r.box.x + r.box.width >= x },
                                  "regions: \(regions.map(\.box))")
        let lines = try await offPoolReading { reader, engine in try reader.readAcross(region, in: photo, engine: engine) }
        return (region, lines)
    }

    @Test("big-name paperbacks (rendered): a small title across a thin spine is read upright and placed on it",
          arguments: [(489, "carrie"), (565, "coraline"), (670, "persuasion")])
    func renderedTitles(x: Int, title: String) async throws {
        let photo = try ImageLoader().load(path: Fixtures.sample("shelves/shelf-1row-titles-across.jpg")).image
        let (region, lines) = try await Self.across(photo, x: x)
        let line = try #require(lines.first { TextStage.letters($0.text).contains(title) }, "read: \(lines.map(\.text))")
        #expect(line.quarterTurns == 0)
        #expect(region.holds(line.box), "\(line.box) off \(region.box)")
        // Across: wider than high.
        #expect(line.box.width > line.box.height, "\(line.box)")
    }

    @Test("a real shelf: a title across in gray beside an author's black name along the spine (\"LISEY'S / STORY\")",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"),
          arguments: [(420, ["lisey", "story"])])
    func realTitles(x: Int, words: [String]) async throws {
        let photo = try ImageLoader().load(path: Fixtures.sharedCorpora + "/shelves/freegle/adam1.jpg").image
        // Every standing spine region over column x (the finder's overlapping windows too).
        let regions = try await offPool { try SpineFinder().spines(in: photo).regions }
            .filter { $0.layout == .spine && $0.box.x <= x && $0.box.x + $0.box.width >= x }
        #expect(!regions.isEmpty)
        let lines = try await offPoolReading { reader, engine in
            try regions.flatMap { region throws(ShelfScanError) in try reader.readAcross(region, in: photo, engine: engine) }
        }
        for word in words {
            #expect(lines.contains { TextStage.letters($0.text).contains(word) && $0.quarterTurns == 0 }, "\(word): read \(lines.map(\.text))")
        }
    }
}
