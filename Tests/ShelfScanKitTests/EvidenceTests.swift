import Testing
@testable import ShelfScanKit

/// A book's evidence as shown: each thing read once.
@Suite("Evidence")
struct EvidenceTests {
    static func line(_ text: String, _ confidence: Double, x: Int = 100, y: Int = 200, width: Int = 40, height: Int = 400,
                     turns: Int = 3) -> Evidence {
        Evidence(line: ReadLine(text: text, confidence: confidence, box: BoundingBox(x: x, y: y, width: width, height: height),
                                textHeight: 30, quarterTurns: turns), matchScore: 0.8)
    }

    @Test("a line read again as it was, where it was, is shown once, at its surest; anything else that differs stays")
    func distinct() {
        let evidence = [
            Self.line("Lynne Reid Banks", 91),
            Self.line("TWO IS LONELY", 70, y: 700),
            Self.line("Lynne Reid Banks", 97, x: 102, y: 198),      // the same, read surer: replaces the first, in its place
            Self.line("Lynne Reid Banks", 96, y: 203, height: 390), // the same again
            Self.line("4 Reid Banks", 92),                          // other text over the same ink
            Self.line("Lynne Reid Banks", 80, turns: 1),            // read the other way
            Self.line("Lynne Reid Banks", 85, y: 1200),             // the same words on other ink (a second copy)
            Self.line("Lynne Reid Banks", 85, x: 90, width: 60, height: 150), // a box a third as long: not the same reading
        ]
        let shown = Evidence.distinct(evidence)
        #expect(shown.map(\.text) == ["Lynne Reid Banks", "TWO IS LONELY", "4 Reid Banks", "Lynne Reid Banks", "Lynne Reid Banks", "Lynne Reid Banks"])
        #expect(shown[0].ocrConfidence == 97)
        #expect(shown[0].box.x == 102)
        #expect(shown[3].orientation == "bottom-to-top")
        #expect(Evidence.distinct([]).isEmpty)
        #expect(Evidence.distinct(Array(shown.reversed())).count == shown.count)
    }

    @Test("lines matched with a book's that bear no trace of it are not shown as its evidence, unless none does")
    func telling() {
        func book(_ title: String, _ authors: [String], isbn13: String? = nil, evidence: [Evidence] = []) -> BookEntity {
            BookEntity(title: title, subtitle: nil, authors: authors, isbn13: isbn13, isbn10: nil, inLibrary: true, libraryId: 1,
                       readingStatus: nil, source: "library", publisher: nil, year: nil, coverURL: nil, confidence: 0.9, evidence: evidence)
        }
        let renault = TextStage.FoundWords(book("Fire From Heaven", ["Mary Renault"], isbn13: "9780140034356"))
        let read = ["Heaven", "si", "nae", "Mary Renauit", "So.", "0 14 003435", "ISBN 0 14", "a"].map { Self.line($0, 80) }
        #expect(renault.telling(read).map(\.text) == ["Heaven", "Mary Renauit", "0 14 003435"])
        // Pieces of a title's words, and words holding one, bear its trace.
        let alice = TextStage.FoundWords(book("Alice in Wonderland", ["Lewis Carroll"]))
        #expect(alice.telling(["WONDER", "LAND", "ALICEIN", "xg", "ANDY"].map { Self.line($0, 80) }).map(\.text) == ["WONDER", "LAND", "ALICEIN"])
        // A common word is no piece of a title's: "OTHER" holds "the", not *The Fix*'s trace.
        let fix = TextStage.FoundWords(book("The Fix", ["David Baldacci"]))
        #expect(fix.telling(["OTHER", "The Fix", "THE"].map { Self.line($0, 80) }).map(\.text) == ["The Fix", "THE"])
        // Nothing bears a trace: every line stays (they are what was read).
        let junk = ["ool", "KN"].map { Self.line($0, 80) }
        #expect(alice.telling(junk).map(\.text) == ["ool", "KN"])
        #expect(alice.telling([]).isEmpty)
    }
}
