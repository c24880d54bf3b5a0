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
}
