import Foundation
import Testing
@testable import ShelfScanKit

/// One line of an ISBN list and what `ISBNLine.parse` must make of it.
struct ISBNLineCase: Sendable, CustomTestStringConvertible {
    let line: String
    let expected: ISBNLine
    let why: String

    init(_ line: String, _ expected: ISBNLine, _ why: String) {
        self.line = line
        self.expected = expected
        self.why = why
    }

    var testDescription: String { "\(why): \(line.debugDescription)" }

    /// An ISBN that the test itself knows is valid.
    static func isbn(_ text: String) -> ISBNLine {
        guard let isbn = ISBN(text) else { fatalError("test table: \(text) is not a valid ISBN") }
        return .isbn(isbn)
    }
}

@Suite("Import: ISBNLine.parse")
struct ImportISBNLineTests {
    static let odyssey = ISBNLineCase.isbn("9780143039952")
    static let hungerGames = ISBNLineCase.isbn("9780439023481")

    static let valid: [ISBNLineCase] = [
        .init("9780143039952", odyssey, "ISBN-13"),
        .init("978-0-14-303995-2", odyssey, "ISBN-13 with hyphens"),
        .init("978 0 14 303995 2", odyssey, "ISBN-13 with spaces"),
        .init("  978-0-14-303995-2 \r", odyssey, "padding and the CR of a CRLF file"),
        .init("978\u{2010}0\u{2010}14\u{2010}303995\u{2010}2", odyssey, "Unicode hyphens"),
        .init("0439023483", hungerGames, "ISBN-10, converted to ISBN-13"),
        .init("0-439-02348-3", hungerGames, "ISBN-10 with hyphens"),
        .init("0 439 02348 3", hungerGames, "ISBN-10 with spaces"),
        .init("=\"0439023483\"", hungerGames, "Goodreads' formula wrapper"),
        .init("=\"9780439023481\"", hungerGames, "Goodreads' wrapper around an ISBN-13"),
        .init("\"9780439023481\"", hungerGames, "a quoted CSV field"),
        .init("\"0-439-02348-3\"", hungerGames, "a quoted ISBN-10 with hyphens"),
        .init("080442957X", ISBNLineCase.isbn("9780804429573"), "ISBN-10 with an X check digit"),
        .init("0-8044-2957-x", ISBNLineCase.isbn("9780804429573"), "lower-case x check digit"),
        .init("979-10-235-0521-4", ISBNLineCase.isbn("9791023505214"), "979 ISBN"),
        .init("The Odyssey,Homer,9780143039952", odyssey, "CSV row, ISBN last"),
        .init("9780143039952,The Odyssey,Homer", odyssey, "CSV row, ISBN first"),
        .init("Homer,978-0-14-303995-2,The Odyssey", odyssey, "CSV row, ISBN in the middle"),
        .init("\"The Odyssey\",\"Homer\",\"9780143039952\"", odyssey, "CSV row of quoted fields"),
        .init("\"Catch-22\",\"Heller, Joseph\",\"0684833395\"", ISBNLineCase.isbn("9780684833392"), "quoted comma in an author field"),
        .init("1984,George Orwell,9780451524935", ISBNLineCase.isbn("9780451524935"), "a title made of digits before the ISBN"),
        .init("9780143039952\tThe Odyssey", odyssey, "tab-separated"),
        .init("The Odyssey;Homer;9780143039952", odyssey, "semicolon-separated"),
        .init("The Odyssey,Homer,9780143039953,0140268863", ISBNLineCase.isbn("9780140268867"),
              "a bad field before a good one: the good one wins"),
    ]

    static let badChecksum: [ISBNLineCase] = [
        .init("9780143039953", .badChecksum("9780143039953"), "ISBN-13, last digit off by one"),
        .init("978-0-14-303995-3", .badChecksum("978-0-14-303995-3"), "hyphenated ISBN-13, reported as written"),
        .init("0439023484", .badChecksum("0439023484"), "ISBN-10, wrong check digit"),
        .init("0-439-02348-X", .badChecksum("0-439-02348-X"), "ISBN-10, X where 3 belongs"),
        .init("=\"0439023484\"", .badChecksum("0439023484"), "Goodreads wrapper around a bad ISBN-10"),
        .init("The Odyssey,Homer,9780143039953", .badChecksum("9780143039953"), "CSV row with a bad ISBN"),
        .init("5901234123458", .badChecksum("5901234123458"), "13 digits that are no valid EAN"),
    ]

    static let notABook: [ISBNLineCase] = [
        .init("5901234123457", .notABook("5901234123457", .product), "grocery EAN-13"),
        .init("4006381333931", .notABook("4006381333931", .product), "another grocery EAN-13"),
        .init("036000291452", .notABook("0036000291452", .product), "UPC-A, 12 digits, canonical with a leading 0"),
        .init("0012345678905", .notABook("0012345678905", .product), "UPC-A already as GTIN-13"),
        .init("96385074", .notABook("96385074", .product), "EAN-8"),
        .init("9771234567003", .notABook("9771234567003", .serial), "ISSN (977), a magazine"),
        .init("9790230000017", .notABook("9790230000017", .music), "ISMN (979-0), printed music"),
        .init("Cereal,5901234123457", .notABook("5901234123457", .product), "a grocery code in a CSV row"),
    ]

    static let nothing: [ISBNLineCase] = [
        .init("", .nothing, "empty line"),
        .init("   \t ", .nothing, "blank line"),
        .init("\r", .nothing, "blank CRLF line"),
        .init("ISBN", .nothing, "header"),
        .init("isbn,title,author", .nothing, "CSV header"),
        .init("Title,Author,ISBN13", .nothing, "CSV header, other order"),
        .init("my books", .nothing, "words"),
    ]

    static let unreadable: [ISBNLineCase] = [
        .init("12345", .unreadable("12345"), "five digits"),
        .init("97801430399", .unreadable("97801430399"), "eleven digits"),
        .init("978014303995212", .unreadable("978014303995212"), "fifteen digits"),
        .init("036000291453", .unreadable("036000291453"), "12 digits with a wrong check digit"),
        .init("  4711  ", .unreadable("4711"), "digits, trimmed"),
    ]

    @Test("valid ISBN-10 and ISBN-13 lines, in every written form, give the ISBN-13", arguments: valid)
    func validISBNs(_ c: ISBNLineCase) {
        #expect(ISBNLine.parse(c.line) == c.expected)
    }

    @Test("a wrong check digit is reported as a bad checksum, with what was read", arguments: badChecksum)
    func badCheckDigits(_ c: ISBNLineCase) {
        #expect(ISBNLine.parse(c.line) == c.expected)
    }

    @Test("valid EAN-13, UPC-A and EAN-8 codes that are not books: not a book, with the code kind", arguments: notABook)
    func notBooks(_ c: ISBNLineCase) {
        #expect(ISBNLine.parse(c.line) == c.expected)
    }

    @Test("blank lines, headers and words: nothing to import", arguments: nothing)
    func nothingToImport(_ c: ISBNLineCase) {
        #expect(ISBNLine.parse(c.line) == c.expected)
    }

    @Test("digits that are no ISBN or EAN of any length: unreadable", arguments: unreadable)
    func digitJunk(_ c: ISBNLineCase) {
        #expect(ISBNLine.parse(c.line) == c.expected)
    }

    /// A row exactly as it stands in a Goodreads export file: the `="..."` wrapper is itself a CSV
    /// field, so on disk it is quoted with its quotes doubled (`"=""0330320289"""`). The doc comment
    /// and the README promise that `shelfscan import export.csv` finds the first ISBN of each row.
    @Test("a raw Goodreads export row (wrapper CSV-quoted as on disk) gives its ISBN")
    func rawGoodreadsRow() {
        let row = #"39999,"Nightfall (Nightfall, #1)",Isaac Asimov,"Asimov, Isaac",Robert Silverberg,"=""0330320289""","=""9780330320283""",0,3.99,Pan,Paperback,339,1991,1990,,2019/05/03,,,to-read,,,,0,0"#
        #expect(ISBNLine.parse(row) == ISBNLineCase.isbn("9780330320283"))
        #expect(ISBNLine.parse(#""=""0330320289""""#) == ISBNLineCase.isbn("9780330320283"))
    }
}

@Suite("Import: ContentHash")
struct ImportContentHashTests {
    @Test("the hash is stable: same bytes, same hash, and the FNV-1a value of the documented format")
    func stable() throws {
        let bytes = try Fixtures.bytes(Fixtures.sample("barcodes/isbn-1984-clean.png"))
        #expect(ContentHash.of(bytes) == ContentHash.of(Array(bytes)))
        // FNV-1a 64 of no bytes is its offset basis; of "a" the published test vector.
        #expect(ContentHash.of([]) == "0-cbf29ce484222325")
        #expect(ContentHash.of(Array("a".utf8)) == "1-af63dc4c8601ec8c")
        #expect(ContentHash.of(bytes).hasPrefix("\(bytes.count)-"))
    }

    @Test("different bytes give different hashes: one byte changed, appended, or moved")
    func differs() throws {
        let bytes = try Fixtures.bytes(Fixtures.sample("barcodes/isbn-1984-clean.png"))
        var changed = bytes
        changed[changed.count / 2] ^= 0x01
        var swapped = bytes
        swapped.swapAt(10, 11)
        let variants = [bytes, changed, bytes + [0], bytes + [1], bytes + [0, 0], swapped, Array(bytes.dropLast())]
        #expect(Set(variants.map(ContentHash.of)).count == variants.count)
        // Appended bytes of the same length differ too (the length alone does not tell them apart).
        let suffixed = (0..<300).map { i in ContentHash.of(bytes + [UInt8(i >> 8), UInt8(i & 0xFF), 0xA5]) }
        #expect(Set(suffixed).count == 300)
        #expect(ContentHash.of([0]) != ContentHash.of([0, 0]))
    }
}
