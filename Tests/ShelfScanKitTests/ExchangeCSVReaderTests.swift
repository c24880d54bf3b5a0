import Foundation
import Testing
@testable import ShelfScanKit

/// A CSV text and the rows RFC 4180 says it holds.
struct CSVCase: Sendable, CustomTestStringConvertible {
    let text: String
    let rows: [[String]]
    let why: String

    init(_ why: String, _ text: String, _ rows: [[String]]) {
        self.why = why
        self.text = text
        self.rows = rows
    }

    var testDescription: String { "\(why): \(text.debugDescription)" }
}

@Suite("Exchange: CSVReader.rows")
struct ExchangeCSVReaderTests {
    static let cases: [CSVCase] = [
        .init("plain rows", "a,b,c\n1,2,3\n", [["a", "b", "c"], ["1", "2", "3"]]),
        .init("no trailing newline", "a,b\n1,2", [["a", "b"], ["1", "2"]]),
        .init("one trailing newline adds no row", "a,b\n", [["a", "b"]]),
        .init("blank lines are no rows", "a,b\n\n1,2\n\n", [["a", "b"], ["1", "2"]]),
        .init("quoted fields", "\"a\",\"b\"\n", [["a", "b"]]),
        .init("doubled quotes inside quotes", "\"say \"\"hi\"\"\",x\n", [["say \"hi\"", "x"]]),
        .init("a field that is one quote", "\"\"\"\",x\n", [["\"", "x"]]),
        .init("commas inside quotes", "\"Heller, Joseph\",\"Catch-22, a novel\"\n", [["Heller, Joseph", "Catch-22, a novel"]]),
        .init("newlines inside quotes", "\"line one\nline two\",x\nnext,y\n", [["line one\nline two", "x"], ["next", "y"]]),
        .init("blank line inside quotes", "\"a\n\nb\",c\n", [["a\n\nb", "c"]]),
        .init("CRLF line ends", "a,b\r\n1,2\r\n", [["a", "b"], ["1", "2"]]),
        .init("CRLF and a quoted field at the end of the line", "a,\"b\"\r\n\"1\",2\r\n", [["a", "b"], ["1", "2"]]),
        .init("byte-order mark", "\u{FEFF}Title,ISBN\nX,1\n", [["Title", "ISBN"], ["X", "1"]]),
        .init("byte-order mark before a quoted header", "\u{FEFF}\"Title\",ISBN\n", [["Title", "ISBN"]]),
        .init("empty fields", "a,,c\n,,\n", [["a", "", "c"], ["", "", ""]]),
        .init("empty quoted fields", "\"\",x,\"\"\n", [["", "x", ""]]),
        .init("trailing comma", "a,b,\n", [["a", "b", ""]]),
        .init("trailing comma, no newline", "a,", [["a", ""]]),
        .init("Goodreads' wrapper as written on disk", "\"=\"\"0439023483\"\"\",x\n", [["=\"0439023483\"", "x"]]),
        .init("unquoted wrapper kept as is", "=\"0439023483\",x\n", [["=\"0439023483\"", "x"]]),
        .init("non-ASCII text", "Émile,Jean-Jacques Rousseau,📚\n", [["Émile", "Jean-Jacques Rousseau", "📚"]]),
        .init("empty text", "", []),
    ]

    @Test("RFC 4180 rows", arguments: cases)
    func rows(_ c: CSVCase) {
        #expect(CSVReader.rows(c.text) == c.rows)
    }

    @Test("what the CSV writer writes reads back field for field")
    func writerRoundTrip() {
        let rows = [
            ["Book Id", "Title", "Notes"],
            ["1", "Eats, Shoots & Leaves", "line one\nline two"],
            ["2", "The \"Zero Tolerance\" Approach", "=\"0439023483\""],
            ["3", "", "ends with a comma,"],
            ["4", "\"quoted\"", "CRLF\r\ninside"],
        ]
        let text = rows.map(CSV.row).joined()
        #expect(CSVReader.rows(text) == rows)
        let crlf = rows.map { String(CSV.row($0).dropLast()) + "\r\n" }.joined()
        #expect(CSVReader.rows(crlf) == rows)
    }
}
