import Testing
@testable import ShelfScanKit

// Every expected value below was worked out by hand from the GS1 / ISO 2108 / ISO 3297 rules
// (weights 3,1 from the right for GS1; 10..2 mod 11 for ISBN-10; 8..2 mod 11 for ISSN),
// not copied from a run of the code under test.

@Suite("GS1 check digits")
struct GS1CheckDigitTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let code: String
        var testDescription: String { "\(name) \(code)" }
    }

    static let valid: [Case] = [
        Case(name: "EAN-13 ISBN", code: "9780143039952"),
        Case(name: "EAN-13 grocery", code: "5901234123457"),
        Case(name: "EAN-13 grocery", code: "4006381333931"),
        Case(name: "EAN-13 check 0", code: "9780684833392"),
        Case(name: "UPC-A", code: "036000291452"),
        Case(name: "UPC-A", code: "012345678905"),
        Case(name: "EAN-8", code: "96385074"),
        Case(name: "EAN-8", code: "73513537"),
        Case(name: "GTIN-14", code: "10012345678902"),
        Case(name: "GTIN-14", code: "00012345678905"),
    ]

    @Test("the check digit of the body is the last digit", arguments: valid)
    func checkDigitMatches(_ c: Case) throws {
        let expected = try #require(c.code.last?.wholeNumberValue)
        #expect(GTIN.checkDigit(forBody: c.code.dropLast()) == expected)
    }

    @Test("valid codes of every GS1 length are accepted", arguments: valid)
    func validCodesAccepted(_ c: Case) {
        #expect(GTIN.isValid(c.code))
    }

    @Test("every other final digit is rejected", arguments: valid)
    func wrongCheckDigitRejected(_ c: Case) throws {
        let right = try #require(c.code.last?.wholeNumberValue)
        for wrong in 0...9 where wrong != right {
            let code = String(c.code.dropLast()) + String(wrong)
            #expect(!GTIN.isValid(code), "\(code) has a wrong check digit")
        }
    }

    @Test("wrong lengths are rejected", arguments: [
        "", "0", "1234565",  // EAN-8 short by one
        "9638507400",  // 10 digits: no GS1 length
        "97801430399",  // 11
        "978014303995212",  // 15
        "0000000000000000000",
    ])
    func wrongLengthRejected(_ code: String) {
        #expect(!GTIN.isValid(code))
    }

    @Test("codes with anything but digits are rejected", arguments: [
        "97801430399X2", "978-014303995", " 9780143039952", "9780143039952 ", "96385O74", "abcdefgh", "+1234567",
    ])
    func nonDigitsRejected(_ code: String) {
        #expect(!GTIN.isValid(code))
    }

    @Test("no check digit for an empty or non-digit body")
    func checkDigitOfBadBody() {
        #expect(GTIN.checkDigit(forBody: "") == nil)
        #expect(GTIN.checkDigit(forBody: "97801430399a") == nil)
        #expect(GTIN.checkDigit(forBody: "978 14303995") == nil)
    }
}

@Suite("UPC-E expansion")
struct UPCETests {
    struct Case: Sendable, CustomTestStringConvertible {
        let upcE: String
        let upcA: String
        var testDescription: String { "\(upcE) -> \(upcA)" }
    }

    // One per rule of the standard expansion, keyed on the last data digit X6:
    //   0-2: NS X1 X2 X6 0000 X3 X4 X5 C     3: NS X1 X2 X3 00000 X4 X5 C
    //   4:   NS X1 X2 X3 X4 00000 X5 C       5-9: NS X1 X2 X3 X4 X5 0000 X6 C
    static let cases: [Case] = [
        Case(upcE: "04252614", upcA: "042100005264"),  // X6 = 1 (the sample image's code)
        Case(upcE: "01234505", upcA: "012000003455"),  // X6 = 0
        Case(upcE: "01234514", upcA: "012100003454"),  // X6 = 1
        Case(upcE: "01234523", upcA: "012200003453"),  // X6 = 2
        Case(upcE: "01234531", upcA: "012300000451"),  // X6 = 3
        Case(upcE: "01234543", upcA: "012340000053"),  // X6 = 4
        Case(upcE: "01234558", upcA: "012345000058"),  // X6 = 5
        Case(upcE: "01234565", upcA: "012345000065"),  // X6 = 6
        Case(upcE: "01234572", upcA: "012345000072"),  // X6 = 7
        Case(upcE: "01234589", upcA: "012345000089"),  // X6 = 8
        Case(upcE: "01234596", upcA: "012345000096"),  // X6 = 9
        Case(upcE: "11234502", upcA: "112000003452"),  // number system 1, X6 = 0
        Case(upcE: "11234538", upcA: "112300000458"),  // number system 1, X6 = 3
        Case(upcE: "11234540", upcA: "112340000050"),  // number system 1, X6 = 4
        Case(upcE: "11234579", upcA: "112345000079"),  // number system 1, X6 = 7
    ]

    @Test("expands by the standard rules", arguments: cases)
    func expands(_ c: Case) {
        #expect(GTIN.expandUPCE(c.upcE) == c.upcA)
    }

    @Test("the expansion is a valid UPC-A", arguments: cases)
    func expansionIsValid(_ c: Case) throws {
        let expanded = try #require(GTIN.expandUPCE(c.upcE))
        #expect(GTIN.isValid(expanded))
        #expect(expanded.count == 12)
    }

    @Test("number systems other than 0 and 1 are rejected", arguments: 2...9)
    func otherNumberSystemsRejected(_ ns: Int) {
        // Same data digits as a valid code; whatever the check digit, the number system alone refuses it.
        for check in 0...9 {
            #expect(GTIN.expandUPCE("\(ns)425261\(check)") == nil)
        }
    }

    @Test("a wrong check digit is rejected", arguments: cases)
    func wrongCheckRejected(_ c: Case) throws {
        let right = try #require(c.upcE.last?.wholeNumberValue)
        let wrong = (right + 1) % 10
        #expect(GTIN.expandUPCE(String(c.upcE.dropLast()) + String(wrong)) == nil)
    }

    @Test("wrong lengths and non-digits are rejected", arguments: ["0425261", "042526140", "", "0425261X", "O4252614"])
    func malformedRejected(_ code: String) {
        #expect(GTIN.expandUPCE(code) == nil)
    }
}

@Suite("Canonical forms")
struct CanonicalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let symbology: Symbology
        let decoded: String
        let canonical: String?
        var testDescription: String { "\(symbology.rawValue) \(decoded) -> \(canonical ?? "nil")" }
    }

    static let cases: [Case] = [
        Case(symbology: .ean13, decoded: "9780143039952", canonical: "9780143039952"),
        Case(symbology: .ean13, decoded: "9780143039953", canonical: nil),
        Case(symbology: .ean13, decoded: "036000291452", canonical: nil),  // 12 digits are not an EAN-13
        Case(symbology: .upcA, decoded: "036000291452", canonical: "0036000291452"),
        Case(symbology: .upcA, decoded: "012345678905", canonical: "0012345678905"),
        Case(symbology: .upcA, decoded: "0036000291452", canonical: "0036000291452"),  // already 13
        Case(symbology: .upcA, decoded: "036000291453", canonical: nil),
        Case(symbology: .upcA, decoded: "03600029145", canonical: nil),
        Case(symbology: .upcE, decoded: "04252614", canonical: "0042100005264"),
        Case(symbology: .upcE, decoded: "4252614", canonical: "0042100005264"),  // number system omitted
        Case(symbology: .upcE, decoded: "11234538", canonical: "0112300000458"),
        Case(symbology: .upcE, decoded: "04252615", canonical: nil),
        Case(symbology: .upcE, decoded: "24252614", canonical: nil),
        Case(symbology: .upcE, decoded: "425261", canonical: nil),
        Case(symbology: .ean8, decoded: "96385074", canonical: "96385074"),
        Case(symbology: .ean8, decoded: "96385075", canonical: nil),
        Case(symbology: .ean8, decoded: "9780143039952", canonical: nil),
    ]

    @Test("each symbology's canonical digits", arguments: cases)
    func canonical(_ c: Case) {
        #expect(GTIN.canonical(c.decoded, symbology: c.symbology) == c.canonical)
    }

    @Test("every symbology is covered by the table above")
    func everySymbologyCovered() {
        let covered = Set(Self.cases.map(\.symbology))
        #expect(covered == Set(Symbology.allCases))
    }

    @Test("canonical codes are valid and 13 digits long, 8 for EAN-8", arguments: cases.filter { $0.canonical != nil })
    func canonicalShape(_ c: Case) throws {
        let digits = try #require(GTIN.canonical(c.decoded, symbology: c.symbology))
        #expect(GTIN.isValid(digits))
        #expect(digits.count == (c.symbology == .ean8 ? 8 : 13))
    }
}

@Suite("CodeKind from GS1 prefixes")
struct CodeKindTests {
    @Test("book ISBNs: 978 and 979 other than 979-0", arguments: [
        "9780143039952", "9780804429573", "9791023505214", "9791027603688", "9788490065686",
    ])
    func books(_ code: String) {
        #expect(CodeKind.of(code) == .book)
    }

    @Test("printed music: 979-0 (ISMN)")
    func music() {
        #expect(CodeKind.of("9790260000438") == .music)
    }

    @Test("periodicals: 977 (ISSN)", arguments: ["9770317847001", "9771234567003"])
    func serial(_ code: String) {
        #expect(CodeKind.of(code) == .serial)
    }

    @Test("Japanese book price codes: 191 and 192", arguments: ["1911234567896", "1921234567895"])
    func bookPrice(_ code: String) {
        #expect(CodeKind.of(code) == .bookPrice)
    }

    // In the 13-digit canonical form a UPC-A gains a leading 0, so UPC number systems 2 (random
    // weight), 4 (in-store) and 5 (coupons) become prefixes 02, 04, 05: GS1's 020-029, 040-049
    // and 050-059 restricted ranges. 20-29 are restricted circulation too.
    @Test("restricted circulation and coupons: 02, 04, 05 and 2x", arguments: [
        "0212345678909",  // UPC-A number system 2 (random weight)
        "0412345678903",  // UPC-A number system 4 (in-store)
        "0491234567894",
        "0512345678900",  // UPC-A number system 5 (coupon)
        "2000000000008",
    ])
    func internalUse(_ code: String) {
        #expect(CodeKind.of(code) == .internalUse)
    }

    @Test("trade items: everything else", arguments: [
        "5901234123457", "4006381333931",
        "0036000291452", "0012345678905",  // UPC-A number system 0
        "0024000012344",  // UPC-A 024000 012344: number system 0, an ordinary US company prefix (002)
        "0300000000001",  // 030-039: US drugs
        "0042100005264",  // the expanded UPC-E sample
    ])
    func product(_ code: String) {
        #expect(CodeKind.of(code) == .product)
    }

    @Test("EAN-8: prefixes 0 and 2 are restricted circulation, others trade items")
    func ean8() {
        #expect(CodeKind.of("01234565") == .internalUse)
        #expect(CodeKind.of("21234569") == .internalUse)
        #expect(CodeKind.of("41234563") == .product)
        #expect(CodeKind.of("96385074") == .product)
    }
}

@Suite("ISBN parsing")
struct ISBNTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let isbn13: String
        var testDescription: String { "\"\(text)\"" }
    }

    static let accepted: [Case] = [
        Case(text: "0143039954", isbn13: "9780143039952"),
        Case(text: "0-14-303995-4", isbn13: "9780143039952"),
        Case(text: "0 14 303995 4", isbn13: "9780143039952"),
        Case(text: "080442957X", isbn13: "9780804429573"),
        Case(text: "080442957x", isbn13: "9780804429573"),
        Case(text: "0-8044-2957-X", isbn13: "9780804429573"),
        Case(text: "9780143039952", isbn13: "9780143039952"),
        Case(text: "978-0-14-303995-2", isbn13: "9780143039952"),
        Case(text: "978 0 14 303995 2", isbn13: "9780143039952"),
        Case(text: "979-10-235-0521-4", isbn13: "9791023505214"),
        Case(text: "9791027603688", isbn13: "9791027603688"),
        Case(text: "0201633612", isbn13: "9780201633610"),
    ]

    @Test("ISBN-10 and ISBN-13, with or without separators", arguments: accepted)
    func parses(_ c: Case) throws {
        let isbn = try #require(ISBN(c.text))
        #expect(isbn.isbn13 == c.isbn13)
        #expect(isbn.description == c.isbn13)
    }

    @Test("rejected: wrong check digits, non-book prefixes, wrong lengths, stray characters", arguments: [
        "0143039955",  // ISBN-10, wrong check digit
        "0804429570",  // should be X
        "08044295X7",  // X only as the check character
        "9780143039953",  // ISBN-13, wrong check digit
        "9791023505215",
        "9770317847001",  // 977: a serial, valid EAN-13
        "9790260000438",  // 979-0: printed music, valid EAN-13
        "5901234123457",  // a grocery EAN-13
        "978014303995",  // 12 digits
        "97801430399522",
        "014303995",
        "ISBN 0143039954",
        "0143039954.",
        "",
    ])
    func rejects(_ text: String) {
        #expect(ISBN(text) == nil)
    }

    @Test("the ISBN-10 exists only for 978 ISBNs")
    func isbn10OnlyFor978() throws {
        #expect(try #require(ISBN("9780143039952")).isbn10 == "0143039954")
        #expect(try #require(ISBN("9780804429573")).isbn10 == "080442957X")
        #expect(try #require(ISBN("9791023505214")).isbn10 == nil)
    }

    @Test("ISBN-10 -> ISBN-13 -> ISBN-10 round trip", arguments: ["0143039954", "080442957X", "0201633612", "0306406152", "0451524934"])
    func roundTrip(_ isbn10: String) throws {
        let thirteen = try #require(ISBN(isbn10)).isbn13
        #expect(thirteen.hasPrefix("978"))
        #expect(GTIN.isValid(thirteen))
        let back = try #require(ISBN(thirteen))
        #expect(back.isbn10 == isbn10.uppercased())
        #expect(back == ISBN(isbn10))
    }
}

@Suite("ISSN from a 977 EAN-13")
struct ISSNTests {
    @Test("the ISSN and its mod-11 check character", arguments: [
        ("9770317847001", "0317-8471"),
        ("9772434561006", "2434-561X"),  // check value 10 is written X
        ("9771234567003", "1234-5679"),  // the magazine in SampleImages
        ("9770028083002", "0028-0836"),
    ])
    func issn(_ ean13: String, _ expected: String) {
        #expect(ISSN.from(ean13: ean13) == expected)
    }

    @Test("no ISSN for other codes", arguments: ["9780143039952", "5901234123457", "977031784700", "96385074", ""])
    func notSerial(_ code: String) {
        #expect(ISSN.from(ean13: code) == nil)
    }
}
