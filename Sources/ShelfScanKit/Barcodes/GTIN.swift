/// GS1 check digits and the canonical forms of EAN/UPC codes.
///
/// Canonical form (the one truth files and our output use): EAN-13, UPC-A and UPC-E as 13 digits
/// (UPC-A with a leading 0, UPC-E first expanded to UPC-A), EAN-8 as 8 digits.
public enum GTIN {
    /// The GS1 mod-10 check digit for `body` (all digits but the last).
    public static func checkDigit<S: StringProtocol>(forBody body: S) -> Int? {
        let digits = body.compactMap { $0.isASCIIDigit ? $0.wholeNumberValue : nil }
        guard digits.count == body.count, !digits.isEmpty else { return nil }
        // Weights alternate 3,1,3,... starting from the rightmost body digit.
        var sum = 0
        for (i, d) in digits.reversed().enumerated() { sum += d * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    /// True when `code` is all digits, of a GS1 length (8, 12, 13 or 14), with a correct check digit.
    public static func isValid<S: StringProtocol>(_ code: S) -> Bool {
        guard [8, 12, 13, 14].contains(code.count), let lastCharacter = code.last, lastCharacter.isASCIIDigit,
              let last = lastCharacter.wholeNumberValue,
              let expected = checkDigit(forBody: code.dropLast()) else { return false }
        return last == expected
    }

    /// Expands a UPC-E code (8 digits: number system 0 or 1, six data digits, check digit) to UPC-A.
    /// Returns nil when the number system is not 0/1 or the check digit is wrong.
    public static func expandUPCE<S: StringProtocol>(_ code: S) -> String? {
        let d = code.compactMap { $0.isASCIIDigit ? $0.wholeNumberValue : nil }
        guard d.count == 8, d.count == code.count, d[0] == 0 || d[0] == 1 else { return nil }
        let ns = d[0], x = Array(d[1...6]), check = d[7]
        let body: [Int]
        switch x[5] {
        case 0, 1, 2: body = [ns, x[0], x[1], x[5], 0, 0, 0, 0, x[2], x[3], x[4]]
        case 3: body = [ns, x[0], x[1], x[2], 0, 0, 0, 0, 0, x[3], x[4]]
        case 4: body = [ns, x[0], x[1], x[2], x[3], 0, 0, 0, 0, 0, x[4]]
        default: body = [ns, x[0], x[1], x[2], x[3], x[4], 0, 0, 0, 0, x[5]]
        }
        let bodyText = body.map(String.init).joined()
        guard checkDigit(forBody: bodyText) == check else { return nil }
        return bodyText + String(check)
    }

    /// The canonical digits of a decoded symbol, or nil when its check digit fails.
    public static func canonical(_ digits: String, symbology: Symbology) -> String? {
        switch symbology {
        case .ean13:
            return digits.count == 13 && isValid(digits) ? digits : nil
        case .upcA:
            if digits.count == 12 { return isValid(digits) ? "0" + digits : nil }
            return digits.count == 13 && isValid(digits) ? digits : nil
        case .upcE:
            let eight: String
            switch digits.count {
            case 8: eight = digits
            case 7: eight = "0" + digits  // number system omitted
            default: return nil
            }
            return expandUPCE(eight).map { "0" + $0 }
        case .ean8:
            return digits.count == 8 && isValid(digits) ? digits : nil
        }
    }
}

/// The linear symbologies shelfscan decodes.
public enum Symbology: String, Sendable, Codable, CaseIterable {
    case ean13 = "EAN-13", upcA = "UPC-A", upcE = "UPC-E", ean8 = "EAN-8"
}

/// What a main code identifies, from its GS1 prefix.
public enum CodeKind: String, Sendable, Codable {
    /// A book: EAN-13 with prefix 978, or 979 other than 979-0.
    case book
    /// A periodical (prefix 977, "ISSN").
    case serial
    /// Printed music (prefix 979-0, "ISMN").
    case music
    /// A trade item: groceries, DVDs, anything else.
    case product
    /// Restricted-circulation and coupon ranges (02, 04, 05, 2x): shop-internal codes.
    case internalUse
    /// The Japanese book classification-and-price code (prefix 191/192) printed under the ISBN
    /// on books sold in Japan: information about a book, not a book's identifier.
    case bookPrice

    /// Classifies a canonical code (13 or 8 digits).
    public static func of(_ canonical: String) -> CodeKind {
        guard canonical.count == 13 else {
            // EAN-8 prefixes 0 and 2 are restricted circulation.
            return canonical.hasPrefix("0") || canonical.hasPrefix("2") ? .internalUse : .product
        }
        if canonical.hasPrefix("978") || (canonical.hasPrefix("979") && !canonical.hasPrefix("9790")) { return .book }
        if canonical.hasPrefix("9790") { return .music }
        if canonical.hasPrefix("977") { return .serial }
        if canonical.hasPrefix("191") || canonical.hasPrefix("192") { return .bookPrice }
        // UPC number systems 2, 4 and 5 (GTIN-13 020-029, 040-059) and EAN 200-299.
        if canonical.hasPrefix("02") || canonical.hasPrefix("04") || canonical.hasPrefix("05") || canonical.hasPrefix("2") {
            return .internalUse
        }
        return .product
    }
}

/// An International Standard Book Number, held as its ISBN-13.
public struct ISBN: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The 13 digits (978 or 979 prefix), check digit verified.
    public let isbn13: String

    /// Parses an ISBN-10 or ISBN-13, with or without hyphens and spaces (and a trailing X for
    /// ISBN-10). Returns nil unless the check digit is right and the prefix is a book prefix.
    public init?(_ text: some StringProtocol) {
        var chars: [Character] = []
        for c in text {
            if c == "-" || c == " " || c == "\u{2010}" || c == "\u{2011}" { continue }
            chars.append(c)
        }
        if chars.count == 13, chars.allSatisfy(\.isASCIIDigit) {
            let s = String(chars)
            guard GTIN.isValid(s), CodeKind.of(s) == .book else { return nil }
            isbn13 = s
        } else if chars.count == 10, chars.dropLast().allSatisfy(\.isASCIIDigit),
                  chars.last!.isASCIIDigit || chars.last == "X" || chars.last == "x" {
            let body = String(chars.dropLast())
            guard ISBN.isbn10CheckCharacter(forBody: body) == Character(chars.last!.uppercased()) else { return nil }
            let thirteenBody = "978" + body
            isbn13 = thirteenBody + String(GTIN.checkDigit(forBody: thirteenBody)!)
        } else {
            return nil
        }
    }

    /// The ISBN-10, which exists only for 978 ISBNs.
    public var isbn10: String? {
        guard isbn13.hasPrefix("978") else { return nil }
        let body = String(isbn13.dropFirst(3).dropLast())
        return body + String(ISBN.isbn10CheckCharacter(forBody: body)!)
    }

    public var description: String { isbn13 }

    /// The ISBN-10 check character (0-9 or X) for nine digits.
    static func isbn10CheckCharacter(forBody body: String) -> Character? {
        let digits = body.compactMap(\.wholeNumberValue)
        guard digits.count == 9, body.count == 9 else { return nil }
        var sum = 0
        for (i, d) in digits.enumerated() { sum += d * (10 - i) }
        let check = (11 - sum % 11) % 11
        return check == 10 ? "X" : Character(String(check))
    }
}

/// An International Standard Serial Number, derived from a 977 EAN-13.
public enum ISSN {
    /// The ISSN (NNNN-NNNC) carried by a 977 EAN-13, or nil for any other code.
    public static func from(ean13: String) -> String? {
        guard ean13.count == 13, ean13.hasPrefix("977") else { return nil }
        let body = Array(ean13.dropFirst(3).prefix(7))
        let digits = body.compactMap(\.wholeNumberValue)
        guard digits.count == 7 else { return nil }
        var sum = 0
        for (i, d) in digits.enumerated() { sum += d * (8 - i) }
        let check = (11 - sum % 11) % 11
        let c = check == 10 ? "X" : String(check)
        let s = String(body)
        return "\(s.prefix(4))-\(s.suffix(3))\(c)"
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
