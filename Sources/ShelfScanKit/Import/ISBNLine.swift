/// What one line of an ISBN list (or one scanner read) holds.
public enum ISBNLine: Equatable, Sendable {
    /// A valid ISBN (ISBN-10 converted to ISBN-13).
    case isbn(ISBN)
    /// A valid EAN/UPC that is not a book (grocery, ISSN 977, ...).
    case notABook(String, CodeKind)
    /// Looks like an ISBN or EAN (10 or 13 characters) but the check digit is wrong.
    case badChecksum(String)
    /// Nothing to import: blank, a header, words.
    case nothing
    /// Digits, but not an ISBN of any length.
    case unreadable(String)

    /// Reads a line of a text or CSV file: ISBN-10/13 with or without hyphens and spaces,
    /// Goodreads' `="0439023483"` wrappers, quotes; in a CSV row the first field holding an ISBN.
    public static func parse(_ line: String) -> ISBNLine {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.contains(where: \.isASCIIDigit) else { return .nothing }
        let fields = trimmed.contains(",") || trimmed.contains("\t") || trimmed.contains(";")
            ? trimmed.split(whereSeparator: { $0 == "," || $0 == "\t" || $0 == ";" }).map(String.init) : [trimmed]
        var firstBad: String?
        var firstOther: ISBNLine?
        for raw in fields {
            let field = unwrap(raw)
            let compact = field.filter { $0 != "-" && $0 != " " && $0 != "\u{2010}" && $0 != "\u{2011}" }
            if compact.isEmpty { continue }
            if let isbn = ISBN(compact) { return .isbn(isbn) }
            let digitsOnly = compact.allSatisfy(\.isASCIIDigit)
            if digitsOnly, [8, 12, 13].contains(compact.count), GTIN.isValid(compact) {
                let canonical = compact.count == 12 ? "0" + compact : compact
                firstOther = firstOther ?? .notABook(canonical, CodeKind.of(canonical))
                continue
            }
            let isbnShaped = (compact.count == 13 && digitsOnly)
                || (compact.count == 10 && compact.dropLast().allSatisfy(\.isASCIIDigit) && (compact.last!.isASCIIDigit || compact.last == "X" || compact.last == "x"))
            if isbnShaped { firstBad = firstBad ?? field }
        }
        if let firstOther { return firstOther }
        if let firstBad { return .badChecksum(firstBad) }
        return fields.count == 1 ? .unreadable(trimmed) : .nothing
    }

    /// An ISBN field without CSV quotes (raw or doubled) and Goodreads' `="..."` formula wrapper:
    /// `"=""0330320289"""` as it stands in the file, or `="0330320289"` once CSV-decoded.
    /// For ISBN fields only: quotes are never part of an ISBN.
    static func unwrap(_ s: String) -> String {
        var t = s.filter { $0 != "\"" }.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.hasPrefix("=") { t.removeFirst() }
        return t.trimmingCharacters(in: .whitespaces)
    }
}

/// A fast 64-bit content fingerprint (FNV-1a) with the length: enough to recognise a file an
/// import has already processed, at memory speed.
public enum ContentHash {
    public static func of(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { buffer in
            for b in buffer {
                h ^= UInt64(b)
                h &*= 0x0000_0100_0000_01b3
            }
        }
        return "\(bytes.count)-" + String(h, radix: 16)
    }
}
