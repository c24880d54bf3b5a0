import Foundation
import Testing
@testable import ShelfScanKit

@Suite("Pale lines of letters along a spine, cut out")
struct AlongLinesTests {
    /// A run of `letters` letters of height `size` (the flat band: the text runs left to right).
    static func run(x: Int, width: Int, y: Int = 40, size: Double = 20, letters: Int, light: Bool = false) -> RegionReader.AcrossLine {
        RegionReader.AcrossLine(box: BoundingBox(x: x, y: y, width: width, height: Int(size)), size: size, letters: letters, light: light)
    }

    @Test("words at one level, size and polarity, a word space apart, are one line; the name past a wide gap is another")
    func wordsJoined() {
        // "THE SECRET" and "GARDEN" 30 px apart (1.5 letter heights), then the author's name
        // 80 px (4 letter heights) beyond.
        let title = [Self.run(x: 0, width: 200, letters: 9, light: true), Self.run(x: 230, width: 120, letters: 6, light: true)]
        let author = Self.run(x: 430, width: 400, letters: 21, light: true)
        let joined = RegionReader.wordsJoined(title + [author])
        #expect(joined.map(\.letters) == [21, 15], "\(joined)")
        #expect(joined.last?.box == BoundingBox(x: 0, y: 40, width: 350, height: 20))
        #expect(joined.allSatisfy { $0.light })
    }

    @Test("a run of the other polarity, twice the size or off the line's level stays apart")
    func keptApart() {
        let first = Self.run(x: 0, width: 120, letters: 6)
        let light = Self.run(x: 140, width: 120, letters: 6, light: true)
        #expect(RegionReader.wordsJoined([first, light]).count == 2)
        let big = Self.run(x: 140, width: 240, y: 30, size: 40, letters: 6)
        #expect(RegionReader.wordsJoined([first, big]).count == 2)
        // A letter height lower: the line beside it on a spine with two lines of title.
        let below = Self.run(x: 140, width: 120, y: 60, letters: 6)
        #expect(RegionReader.wordsJoined([first, below]).count == 2)
        // The same, at the line's level, joins.
        let beside = Self.run(x: 140, width: 120, y: 42, letters: 6)
        #expect(RegionReader.wordsJoined([first, beside]).map(\.letters) == [12])
    }

    @Test("one word of a line cut out along a spine names no book beside junk read surely; beside the author's name it does")
    func oneWordCutOut() {
        let (stage, region) = TextPipelineTests.oneSpine([Book(title: "Firestarter", authors: ["Stephen King"]),
                                                          Book(title: "City of Illusions", authors: ["Ursula K. Le Guin"])])
        func along(_ text: String, y: Int, cut: Bool) -> ReadLine {
            var line = ReadLine(text: text, confidence: 95, box: BoundingBox(x: 120, y: y, width: 30, height: 200), textHeight: 30, quarterTurns: 3)
            line.cutOut = cut
            return line
        }
        func named(_ lines: [ReadLine]) -> [String?] { stage.match(lines: [lines], regions: [region], coverLike: false).0.map(\.title) }
        // One word cut out (chris1: a publisher's name, PANTHER beside GRANADA, named *The
        // Panther*; publishers' words now need the author anyway), and a sure scrap of the spine.
        #expect(named([along("Ci", y: 50, cut: false), along("FIRESTARTER", y: 400, cut: true)]).isEmpty)
        // Read so in the first reading, the word is matched as any line is.
        #expect(named([along("Ci", y: 50, cut: false), along("FIRESTARTER", y: 400, cut: false)]) == ["Firestarter"])
        // Cut out beside the author's name, it names the book.
        #expect(named([along("Stephen King", y: 50, cut: false), along("FIRESTARTER", y: 400, cut: true)]) == ["Firestarter"])
    }

    /// `ruth3` (a Puffin Classics box set and Lorna Hill paperbacks, photographed lying: upright,
    /// its spines stand): each standing spine region over column `x`, its first reading, and its
    /// lines cut out along it besides that reading, once per entry of `turns`.
    static func ruth3(over x: Int, turns: [[Int]?]) async throws -> [(region: TextRegion, first: [ReadLine], cut: [[ReadLine]])] {
        let photo = try ImageLoader().load(path: Fixtures.sharedCorpora + "/shelves/freegle/ruth3.jpg").image
        let regions = try await offPool { try SpineFinder().spines(in: photo).regions }
            .filter { $0.layout == .spine && $0.box.x <= x && $0.box.x + $0.box.width >= x }
        #expect(!regions.isEmpty)
        return try await offPoolReading { reader, engine in
            try regions.map { region throws(ShelfScanError) in
                let first = try reader.read(region, in: photo, engine: engine)
                let cut = try turns.map { t throws(ShelfScanError) in
                    try reader.readAlongLines(region, in: photo, engine: engine, besides: first, turns: t)
                }
                return (region, first, cut)
            }
        }
    }

    @Test("a real shelf: a title in pale small capitals beside the author's name in white is read cut out and names the book (\"THE SECRET GARDEN\")",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func realPaleTitle() async throws {
        // The spine's column in the Puffin box set: its name, FRANCES HODGSON BURNETT, lies
        // below y 290, its title above.
        let read = try await Self.ruth3(over: 128, turns: [nil]).map { ($0.region, $0.first, $0.cut[0]) }
        let cut = read.flatMap { $0.2 }
        #expect(cut.allSatisfy { $0.cutOut })
        // A line cut out on the title's stretch of the spine, read the way the name was.
        let title = try #require(cut.first { $0.box.y + $0.box.height <= 290 && $0.box.height > $0.box.width },
                                 "cut out: \(cut.map { "\($0.text) \($0.box)" })")
        let (region, first, _) = try #require(read.first { $0.2.contains(title) })
        #expect(region.holds(title.box))
        #expect(first.contains { $0.confidence >= 75 && $0.quarterTurns == title.quarterTurns })
        // With the name beside it, the title is matched among the author's other books and
        // titles sharing its words.
        let (stage, _) = TextPipelineTests.oneSpine([
            Book(title: "The Secret Garden", authors: ["Frances Hodgson Burnett"]),
            Book(title: "A Little Princess", authors: ["Frances Hodgson Burnett"]),
            Book(title: "The Secret History", authors: ["Donna Tartt"]),
            Book(title: "The Garden Party", authors: ["Katherine Mansfield"]),
        ])
        let (named, _) = stage.match(lines: [first + [title]], regions: [region], coverLike: false)
        #expect(named.map(\.title) == ["The Secret Garden"], "read: \((first + [title]).map(\.text))")
        // Without the cut-out line, only the name: no title of the two.
        let (nameOnly, _) = stage.match(lines: [first], regions: [region], coverLike: false)
        #expect(!nameOnly.contains { $0.title == "The Secret Garden" })
    }

    @Test("a real shelf: a worn spine read as nothing has its lines cut out read in the direction given, none without one (\"Lorna Hill\")",
          .enabled(if: Fixtures.hasSharedCorpora, "../shared/corpora is absent beside the repository"))
    func realNothingRead() async throws {
        // A Piccolo paperback (*No Castanets at the Wells*): the first reading keeps nothing sure.
        let read = try await Self.ruth3(over: 637, turns: [nil, [3]]).map { ($0.region, $0.first, $0.cut[0], $0.cut[1]) }
        let unsure = read.filter { r in !r.1.contains { $0.confidence >= 75 && r.0.holds($0.box) } }
        #expect(!unsure.isEmpty, "every region read a sure line: \(read.map { $0.1.map(\.text) })")
        // No sure line and no direction: nothing read.
        #expect(unsure.allSatisfy { $0.2.isEmpty })
        // The photo's usual direction (top to bottom): the author's name, on the spine.
        let cut = unsure.flatMap { r in r.3.filter { r.0.holds($0.box) } }
        #expect(cut.contains { TextStage.letters($0.text).contains("hill") && $0.cutOut && $0.quarterTurns == 3 },
                "cut out: \(cut.map(\.text))")
    }
}
