import Foundation

/// Output formats for scan results.
public enum OutputFormat: String, Sendable, CaseIterable {
    case table, json, jsonl, csv
}

/// Writes scan results in one format, streaming: `header`, then `render` per image, then `footer`.
public protocol ResultRenderer {
    func header() -> String
    func render(_ result: ImageResult, isFirst: Bool) -> String
    func footer() -> String
}

extension OutputFormat {
    /// The renderer for this format.
    public func renderer() -> any ResultRenderer {
        switch self {
        case .table: TableRenderer()
        case .json: JSONRenderer(lines: false)
        case .jsonl: JSONRenderer(lines: true)
        case .csv: CSVRenderer()
        }
    }
}

/// JSON shared by the renderers: stable key order, no escaped slashes.
public enum ResultJSON {
    public static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    public static func string<T: Encodable>(_ value: T, pretty: Bool = false) -> String {
        guard let data = try? encoder(pretty: pretty).encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// `--format json`: one document `{"images": [...]}`; `--format jsonl`: one image result per line.
struct JSONRenderer: ResultRenderer {
    let lines: Bool

    func header() -> String { lines ? "" : "{\"images\":[\n" }

    func render(_ result: ImageResult, isFirst: Bool) -> String {
        let body = ResultJSON.string(RoundedResult(result))
        return lines ? body + "\n" : (isFirst ? "" : ",\n") + body
    }

    func footer() -> String { lines ? "" : "\n]}\n" }
}

/// Rounds figures for output (confidences to 0.01, milliseconds to 0.1) without changing the model.
struct RoundedResult: Encodable {
    let result: ImageResult
    init(_ result: ImageResult) { self.result = result }

    func encode(to encoder: any Encoder) throws {
        var copy = result
        copy.books = copy.books.map { var b = $0; b.confidence = (b.confidence * 100).rounded() / 100; return b }
        for path in [\StageTimings.decode, \.barcodes, \.regions, \.ocr, \.matching, \.lookup, \.total] {
            copy.timings[keyPath: path] = (copy.timings[keyPath: path] * 10).rounded() / 10
        }
        try copy.encode(to: encoder)
    }
}

/// `--format csv`: one row per book (an image with no book gets one row with empty book fields).
struct CSVRenderer: ResultRenderer {
    func header() -> String {
        "image,rank,title,authors,isbn13,isbn10,in_library,library_id,reading_status,confidence,evidence,error\n"
    }

    func render(_ result: ImageResult, isFirst: Bool) -> String {
        if result.books.isEmpty {
            return CSV.row([result.image, "", "", "", "", "", "", "", "", "", otherCodes(result), result.error?.message ?? ""])
        }
        return result.books.enumerated().map { rank, book in
            CSV.row([
                result.image, String(rank + 1), book.title ?? "", book.authors.joined(separator: "; "),
                book.isbn13 ?? "", book.isbn10 ?? "", book.inLibrary ? "true" : "false",
                book.libraryId.map(String.init) ?? "", book.readingStatus?.rawValue ?? "",
                String(format: "%.2f", book.confidence),
                book.evidence.map { "\($0.kind.rawValue) \($0.text)" }.joined(separator: "; "), "",
            ])
        }.joined()
    }

    private func otherCodes(_ result: ImageResult) -> String {
        result.barcodes.map { "barcode \($0.text) (\($0.kind.rawValue))" }.joined(separator: "; ")
    }

    func footer() -> String { "" }
}

/// RFC 4180 quoting.
public enum CSV {
    public static func field(_ s: String) -> String {
        // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard s.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\n"
    }
}

/// The default, for people: per image, a numbered list of books with their evidence.
struct TableRenderer: ResultRenderer {
    func header() -> String { "" }

    func render(_ result: ImageResult, isFirst: Bool) -> String {
        var out = isFirst ? "" : "\n"
        if let error = result.error {
            // The message names the file already.
            return out + "error: \(error.message)\n"
        }
        out += "\(result.image)  (\(result.width)x\(result.height), \(String(format: "%.0f", result.timings.total)) ms)\n"
        if result.books.isEmpty {
            out += "  no books found\n"
        }
        for (rank, book) in result.books.enumerated() {
            let title = book.title ?? "(unknown title)"
            let by = book.authors.isEmpty ? "" : " by " + book.authors.joined(separator: ", ")
            let isbn = book.isbn13.map { "  ISBN \($0)" } ?? ""
            let where_ = book.inLibrary
                ? "in library #\(book.libraryId ?? 0)" + (book.readingStatus.map { ", \($0.rawValue)" } ?? "")
                : "not in library"
            out += "  \(rank + 1). \(title)\(by)\(isbn)  [\(where_)]  \(String(format: "%.2f", book.confidence))\n"
            for e in book.evidence {
                switch e.kind {
                case .barcode:
                    out += "       barcode \(e.text) at \(e.box.x),\(e.box.y) \(e.box.width)x\(e.box.height)\n"
                case .text:
                    let details = [e.orientation, e.ocrConfidence.map { "OCR \(Int($0.rounded()))" },
                                   e.matchScore.map { String(format: "match %.2f", $0) }].compactMap { $0 }.joined(separator: ", ")
                    out += "       text \"\(e.text)\" (\(details)) at \(e.box.x),\(e.box.y) \(e.box.width)x\(e.box.height)\n"
                }
            }
        }
        let others = result.barcodes.filter { $0.kind != .book }
        for code in others {
            let extra = code.issn.map { ", ISSN \($0)" } ?? ""
            out += "  other barcode: \(code.symbology.rawValue) \(code.text) (\(code.kind.rawValue)\(extra); not a book)\n"
        }
        // Title-like text that named no book: where a book may have been missed, or one that is
        // in no library. The surest few; `--format json` lists them all.
        let unidentified = result.unidentified.sorted { $0.ocrConfidence > $1.ocrConfidence }
        for u in unidentified.prefix(Self.unidentifiedShown) {
            out += "  unidentified text: \"\(u.text)\" (OCR \(Int(u.ocrConfidence.rounded()))) at \(u.box.x),\(u.box.y) \(u.box.width)x\(u.box.height)\n"
        }
        if unidentified.count > Self.unidentifiedShown {
            out += "  (\(unidentified.count - Self.unidentifiedShown) more unidentified texts: --format json lists them)\n"
        }
        return out
    }

    /// Unidentified texts shown per image.
    static let unidentifiedShown = 10

    func footer() -> String { "" }
}
