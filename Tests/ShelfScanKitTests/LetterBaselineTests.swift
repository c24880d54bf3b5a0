import Foundation
import Testing
@testable import ShelfScanKit

/// Letter boxes of a line of text as a font sets them: every letter on the baseline, x-height
/// letters half as tall again below the capitals and ascenders, descenders below the baseline.
enum SetLine {
    static let tall = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZbdfhklt")
    static let descending = Set("gjpqy")

    /// Boxes of `text` lying upright (x along the line, y down), baseline at `baseline`.
    static func boxes(_ text: String, x: Int = 10, baseline: Int = 100, xHeight: Int = 20) -> [BoundingBox] {
        var out: [BoundingBox] = []
        var left = x
        for ch in text {
            if ch == " " { left += xHeight; continue }
            let top = baseline - (tall.contains(ch) ? xHeight * 3 / 2 : xHeight)
            let bottom = baseline + (descending.contains(ch) ? xHeight / 2 : 0)
            out.append(BoundingBox(x: left, y: top, width: xHeight * 3 / 4, height: bottom - top))
            left += xHeight
        }
        return out
    }

    /// The boxes turned by `turns` quarter turns clockwise within a `side` x `side` square.
    static func turned(_ boxes: [BoundingBox], _ turns: Int, side: Int = 2000) -> [BoundingBox] {
        boxes.map { b in
            switch ((turns % 4) + 4) % 4 {
            case 1: BoundingBox(x: side - b.y - b.height, y: b.x, width: b.height, height: b.width)
            case 2: BoundingBox(x: side - b.x - b.width, y: side - b.y - b.height, width: b.width, height: b.height)
            case 3: BoundingBox(x: b.y, y: side - b.x - b.width, width: b.height, height: b.width)
            default: b
            }
        }
    }
}

@Suite("Which way up letters stand")
struct LetterBaselineTests {
    /// The quarter turn `LetterBaseline` asks for to stand the letters upright, for a line set
    /// upright and then turned `turns` clockwise: lying lines (0, 2) read by 0 or 2, standing ones
    /// (1, 3) by the turn that undoes it.
    static func guess(_ boxes: [BoundingBox], turnedBy turns: Int) -> Int? {
        LetterBaseline.upright(SetLine.turned(boxes, turns), standing: turns % 2 == 1)
    }

    @Test("mixed-case lines: the turn that stands them upright, whichever way they lie", arguments: [0, 1, 2, 3])
    func mixedCase(turns: Int) {
        let line = SetLine.boxes("Little Women by Louisa May Alcott")
        #expect(Self.guess(line, turnedBy: turns) == (4 - turns) % 4)
    }

    @Test("a title and a smaller author's name centred on one axis (two baselines) still say which way up",
          arguments: [0, 1, 2, 3])
    func twoSizes(turns: Int) {
        // The author's name, three quarters the size, centred on the title's middle.
        let title = SetLine.boxes("Atonement", baseline: 100, xHeight: 24)
        let author = SetLine.boxes("Ian McEwan", x: 300, baseline: 94, xHeight: 18)
        #expect(Self.guess(title + author, turnedBy: turns) == (4 - turns) % 4)
    }

    @Test("a slanted line (a leaning spine) is measured along its slant", arguments: [0, 1, 2, 3])
    func slanted(turns: Int) {
        // Each letter a pixel lower than the last: 5 degrees or so.
        let line = SetLine.boxes("Little Women by Louisa May Alcott").enumerated()
            .map { i, b in BoundingBox(x: b.x, y: b.y + i, width: b.width, height: b.height) }
        #expect(Self.guess(line, turnedBy: turns) == (4 - turns) % 4)
        let capitals = SetLine.boxes("FULL CIRCLE MICHAEL PALIN").enumerated()
            .map { i, b in BoundingBox(x: b.x, y: b.y + i, width: b.width, height: b.height) }
        #expect(Self.guess(capitals, turnedBy: turns) == nil)
    }

    @Test("capitals, digits and too few letters say nothing",
          arguments: ["THE LORD OF THE RINGS", "1984 2001 3001", "Emma", "Kim Ng"])
    func silent(text: String) {
        for turns in 0..<4 {
            #expect(Self.guess(SetLine.boxes(text), turnedBy: turns) == nil, "\(text) turned \(turns)")
        }
    }

    @Test("two spines read opposite ways in one region: no guess")
    func opposite() {
        let one = SetLine.boxes("Little Women Louisa May Alcott", baseline: 100)
        let other = SetLine.turned(one, 2, side: 400)
            .map { BoundingBox(x: $0.x + 1000, y: $0.y + 60, width: $0.width, height: $0.height) }
        #expect(LetterBaseline.upright(one + other, standing: false) == nil)
    }

    /// The Zen cover's three-line title, light on dark blue (SampleImages, made by the generator).
    static func renderedTitle() throws -> PixImage {
        let cover = try ImageLoader().load(path: Fixtures.sample("covers/cover-zen-motorcycle-subtitle-glare.jpg")).image
        return try cover.cropped(to: BoundingBox(x: 170, y: 150, width: 620, height: 260)).grayscale()
    }

    /// The Zen title's first line standing as on a spine read bottom to top (a quarter turn
    /// clockwise stands it upright), and a spine region over the whole of it.
    static func standingTitle() throws -> (PixImage, TextRegion) {
        let cover = try ImageLoader().load(path: Fixtures.sample("covers/cover-zen-motorcycle-subtitle-glare.jpg")).image
        let photo = try cover.cropped(to: BoundingBox(x: 170, y: 160, width: 620, height: 90)).rotated(quarterTurns: 3)
        let region = TextRegion(layout: .spine, box: BoundingBox(x: 0, y: 0, width: photo.width, height: photo.height), lean: 0,
                                typicalThickness: Double(photo.width), row: 0, index: 0)
        return (photo, region)
    }

    @Test("a spine whose letters say which way up they stand is read that way first, against the photo's usual way, and once")
    func readerFollowsLetters() async throws {
        let (photo, region) = try Self.standingTitle()
        let votes = DirectionVotes()
        for _ in 0..<5 { votes.add(3) }
        let (lines, readings) = try await offPoolReading { reader, engine in
            let budget = ReadBudget(limit: .max)
            reader.budget = budget
            return (try reader.read(region, in: photo, engine: engine, votes: votes, first: true), budget.readings)
        }
        #expect(readings == 1, "\(readings) readings: \(lines.map { "q\($0.quarterTurns) \($0.confidence) \($0.text)" })")
        #expect(lines.contains { $0.quarterTurns == 1 && $0.confidence >= 85 && $0.text.contains("Zen and the Art") },
                "\(lines.map { "q\($0.quarterTurns) \($0.confidence) \($0.text)" })")
        // The later passes take the letters' way for this region, the photo's for another; the
        // votes they count afresh after matching keep the letters' ways, not the old votes.
        let other = TextRegion(layout: .spine, box: region.box, lean: 0, typicalThickness: region.typicalThickness, row: 0, index: 1)
        #expect(votes.usualTurns(of: region) == [1])
        #expect(votes.usualTurns(of: other) == [3])
        let afresh = votes.guessesOnly()
        #expect(afresh.usualTurns(of: region) == [1])
        #expect(afresh.usualTurns(of: other) == [1, 3])
    }

    @Test("a reading held to one way (the second model's) reads only that way, its retries included")
    func heldToOneWay() async throws {
        let (photo, region) = try Self.standingTitle()
        func described(_ lines: [ReadLine]) -> String { "\(lines.map { "q\($0.quarterTurns) \(Int($0.confidence)) \($0.text)" })" }
        let (held, free) = try await offPoolReading { reader, engine in
            (try reader.read(region, in: photo, engine: engine, votes: DirectionVotes(), turns: [3]),
             try reader.read(region, in: photo, engine: engine, votes: DirectionVotes()))
        }
        // Upside down, every retry that way too: its letters' way (q1) is never read.
        #expect(held.allSatisfy { $0.quarterTurns == 3 }, "\(described(held))")
        #expect(!held.contains { $0.text.contains("Zen and the Art") }, "\(described(held))")
        #expect(free.contains { $0.quarterTurns == 1 && $0.text.contains("Zen and the Art") }, "\(described(free))")
    }

    @Test("a retry reads the way the spine's letters stand; else the photo's usual way as it is when the retry starts; else both")
    func retryDirections() {
        #expect(RegionReader.retryTurns([1, 3], guess: 1, usual: 3) == [1])
        // The photo had no sure line yet when the reading began (its first way q1), one read
        // top to bottom since: the retry goes that way, not the way tried first.
        #expect(RegionReader.retryTurns([1, 3], guess: nil, usual: 3) == [3])
        #expect(RegionReader.retryTurns([3, 1], guess: nil, usual: 3) == [3])
        #expect(RegionReader.retryTurns([1, 3], guess: nil, usual: nil) == [1, 3])
        #expect(RegionReader.retryTurns([0, 2], guess: nil, usual: 2) == [2])
        // Held to one way, a reading keeps to it whatever its letters say.
        #expect(RegionReader.retryTurns([3], guess: 1, usual: 3) == [3])
        #expect(RegionReader.retryTurns([3], guess: 1, usual: nil) == [3])
    }

    @Test("a rendered cover's title, measured as the reader measures spines, turned every way",
          arguments: [0, 1, 2, 3])
    func renderedTitle(turns: Int) throws {
        // "Zen and the Art / of Motorcycle / Maintenance" in a serif face.
        let turned = try Self.renderedTitle().rotated(quarterTurns: turns)
        let standing = turns % 2 == 1
        let letters = try #require(try RegionReader.letterBoxes(in: turned, standing: standing))
        #expect(LetterBaseline.upright(letters, standing: standing) == (4 - turns) % 4, "\(letters.count) letters")
    }
}
