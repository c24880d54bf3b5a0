import Foundation
import Testing
@testable import ShelfScanKit

@Suite("Unnamed spines read again: widened, as distances from their ground, and at their letters' size")
struct RetryCropsTests {
    /// The standing spine regions of a real shelf photo over column `x` in rows below `below`,
    /// each with what `read` makes of it (the first reading, then the retry's).
    static func regions(of photo: String, over x: Int, below: Int = 0,
                        _ read: @escaping @Sendable (RegionReader, TextRegion, PixImage, TesseractEngine) throws(ShelfScanError) -> [ReadLine])
        async throws -> [(region: TextRegion, first: [ReadLine], again: [ReadLine])]
    {
        let image = try ImageLoader().load(path: Fixtures.sharedCorpora + "/shelves/" + photo).image
        let regions = try await offPool { try SpineFinder().spines(in: image).regions }
            .filter { $0.layout == .spine && $0.box.y >= below && $0.box.x <= x && $0.box.x + $0.box.width >= x }
        #expect(!regions.isEmpty)
        return try await offPoolReading { reader, engine in
            try regions.map { region throws(ShelfScanError) in
                (region, try reader.read(region, in: image, engine: engine), try read(reader, region, image, engine))
            }
        }
    }

    static func reads(_ lines: [ReadLine], _ word: String) -> Bool {
        lines.contains { TextStage.letters($0.text).contains(word) }
    }

    @Test("letters lighter and darker than their ground both come out dark on white")
    func distanceBothShades() throws {
        // A mid-gray ground with a dark bar and a light bar, each a few pixels thick (strokes).
        let width = 240, height = 120
        var pixels = [UInt8](repeating: 128, count: width * height)
        for y in 40..<80 {
            for x in 40..<46 { pixels[y * width + x] = 30 }
            for x in 160..<166 { pixels[y * width + x] = 230 }
        }
        let image = try PixImage(gray: GrayBytes(width: width, height: height, pixels: pixels))
        let out = try image.distanceFromGround(window: 64).grayBytes()
        func at(_ x: Int, _ y: Int) -> UInt8 { out.pixels[y * out.width + x] }
        #expect(out.width == width && out.height == height)
        #expect(at(42, 60) < 80, "dark stroke: \(at(42, 60))")
        #expect(at(162, 60) < 80, "light stroke: \(at(162, 60))")
        #expect(at(100, 60) > 200, "ground: \(at(100, 60))")
        #expect(at(10, 10) > 200, "ground: \(at(10, 10))")
    }

    @Test("a crop thinner than the ground's window still comes back, the size it was")
    func distanceThinCrop() throws {
        for (width, height) in [(20, 200), (200, 20), (16, 16), (10, 300), (3, 50), (1, 40)] {
            let pixels = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 % 7 == 0 ? 40 : 150) }
            let image = try PixImage(gray: GrayBytes(width: width, height: height, pixels: pixels))
            let out = try image.distanceFromGround(window: 64)
            #expect(out.width == width && out.height == height)
        }
    }

    @Test("a real shelf: a title in white beside the author's name in black reads as distances from the spine's gray (\"UNCLE FRED IN\")",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func realDistance() async throws {
        // `suzanne4`'s lower row: an orange Penguin, "P.G. WODEHOUSE" in black, "UNCLE FRED IN /
        // THE SPRINGTIME" in white beside it; the first reading keeps THE SPRINGTIME at most.
        let read = try await Self.regions(of: "freegle/suzanne4.jpg", over: 540, below: 500) { reader, region, image, engine throws(ShelfScanError) in
            try reader.readDistance(region, in: image, engine: engine, turns: [3])
        }
        #expect(!read.contains { Self.reads($0.first, "uncle") }, "first: \(read.map { $0.first.map(\.text) })")
        #expect(read.contains { Self.reads($0.again, "uncle") }, "distances: \(read.map { $0.again.map(\.text) })")
    }

    @Test("a real shelf: a lying book's title, small beside the stack's thick hardbacks, reads at its letters' size (\"CAKES AND ALE\")",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func realLetterSized() async throws {
        // `carol1` (540x960, upside down): a stack whose books are about 40-100 px thick, W.
        // Somerset Maugham's "CAKES AND ALE" printed 10 px high along a thin one; the spine's
        // thickness scales the crop down, and the first reading makes nothing of it.
        let image = try ImageLoader().load(path: Fixtures.sharedCorpora + "/shelves/freegle/carol1.jpg").image
        let regions = try await offPool { try SpineFinder().spines(in: image).regions }
            .filter { $0.layout == .lyingSpine && $0.box.y <= 650 && $0.box.y + $0.box.height >= 650 }
        #expect(!regions.isEmpty)
        let read = try await offPoolReading { reader, engine in
            try regions.map { region throws(ShelfScanError) in
                let first = try reader.read(region, in: image, engine: engine)
                return (first, try reader.readLetterSized(region, in: image, engine: engine, turns: region.quarterTurns, besides: first),
                        try reader.readLetterSized(region, in: image, engine: engine, turns: region.quarterTurns, besides: first,
                                                   maximumPixels: 10_000))
            }
        }
        #expect(!read.contains { Self.reads($0.0, "cakes") }, "first: \(read.map { $0.0.map(\.text) })")
        #expect(read.contains { Self.reads($0.1, "cakes") }, "sized: \(read.map { $0.1.map(\.text) })")
        // A crop that would grow past the limit is not read at that size.
        #expect(read.allSatisfy { $0.2.isEmpty }, "over the limit: \(read.map { $0.2.map(\.text) })")
    }

    @Test("letter-sized readings are sized by letters of one size, not by a few shapes of any size",
          arguments: [
              // A title's letters with a blot and specks (carol1's CAKES AND ALE as first scaled).
              ([6, 7, 7, 9, 9, 9, 51], 9.0),
              // Specks of grain and a picture's edges around a line of small letters.
              ([6, 6, 6, 6, 7, 10, 12, 14, 15, 51], 10.0),
              // Four shapes, one of them a picture 112 px high: no size to read at.
              ([7, 8, 15, 112], nil),
              // Too few shapes.
              ([9, 9, 9], nil),
          ] as [([Double], Double?)])
    func letterSize(sizes: [Double], expected: Double?) {
        #expect(RegionReader.letterSize(sizes) == expected)
    }

    @Test("a real shelf: a spine whose region's edge runs through its label reads its title widened (\"THE LAST CONTINENT\")",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func realWidened() async throws {
        // `suzanne2`'s last Discworld paperback: the spine finder puts an edge through its label.
        let read = try await Self.regions(of: "freegle/suzanne2.jpg", over: 2000) { reader, region, image, engine throws(ShelfScanError) in
            try reader.readWidened(region, in: image, engine: engine, turns: [3])
        }
        #expect(!read.contains { Self.reads($0.first, "continent") }, "first: \(read.map { $0.first.map(\.text) })")
        let widened = try #require(read.first { Self.reads($0.again, "continent") }, "widened: \(read.map { $0.again.map(\.text) })")
        // Kept lines lie on the spine's band, widened: never on a neighbour's middle.
        let grow = Double(widened.region.box.width) * RegionReader.widen
        for line in widened.again {
            let middle = Double(line.box.x) + Double(line.box.width) / 2
            if let band = widened.region.band {
                #expect(middle >= band.lowerBound - grow - 20 && middle <= band.upperBound + grow + 20, "\(line.text) \(line.box)")
            }
        }
    }
}
