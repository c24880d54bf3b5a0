import Foundation

/// Where metadata came from.
public enum MetadataSource: String, Codable, Sendable, CaseIterable {
    case openlibrary, googlebooks
}

/// What a public catalogue knows about one book.
public struct BookMetadata: Codable, Sendable, Equatable {
    public var isbn13: String?
    public var isbn10: String?
    public var title: String
    public var subtitle: String?
    public var authors: [String]
    public var publisher: String?
    public var year: Int?
    public var pageCount: Int?
    /// ISO 639-1 where known ("en"), else what the source said.
    public var language: String?
    public var categories: [String]
    public var description: String?
    public var coverURL: String?
    /// Where each value came from: the first source, or several after a merge.
    public var sources: [MetadataSource]

    public init(isbn13: String? = nil, isbn10: String? = nil, title: String, subtitle: String? = nil, authors: [String] = [],
                publisher: String? = nil, year: Int? = nil, pageCount: Int? = nil, language: String? = nil,
                categories: [String] = [], description: String? = nil, coverURL: String? = nil, sources: [MetadataSource]) {
        self.isbn13 = isbn13
        self.isbn10 = isbn10
        self.title = title
        self.subtitle = subtitle
        self.authors = authors
        self.publisher = publisher
        self.year = year
        self.pageCount = pageCount
        self.language = language
        self.categories = categories
        self.description = description
        self.coverURL = coverURL
        self.sources = sources
    }
}

/// Small helpers for the loosely typed JSON the catalogues return.
enum JSONValue {
    static func object(_ bytes: [UInt8], service: String) throws(ShelfScanError) -> [String: Any] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes)), let object = value as? [String: Any] else {
            throw ShelfScanError(.badResponse, "\(service) sent a response that is not the expected JSON object; try later")
        }
        return object
    }

    static func string(_ v: Any?) -> String? {
        guard let s = v as? String else { return nil }
        let t = s.trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }

    static func int(_ v: Any?) -> Int? {
        if let i = v as? Int { return i }
        if let d = v as? Double, d.isFinite { return Int(d) }
        if let s = v as? String { return Int(s.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    /// A string, or the `value` of a `{type, value}` object (Open Library's text fields).
    static func text(_ v: Any?) -> String? {
        if let s = string(v) { return s }
        if let o = v as? [String: Any] { return string(o["value"]) }
        return nil
    }

    static func strings(_ v: Any?) -> [String] {
        (v as? [Any])?.compactMap { string($0) } ?? []
    }

    /// The first four-digit year in a date such as "2009", "March 2009" or "2009-03-01".
    static func year(_ v: Any?) -> Int? {
        if let i = int(v), (1000...2999).contains(i) { return i }
        guard let s = v as? String else { return nil }
        var digits = ""
        for c in s {
            if c.isASCIIDigit { digits.append(c); if digits.count == 4, let y = Int(digits), (1000...2999).contains(y) { return y } } else { digits = "" }
        }
        return nil
    }

    /// ISO 639-1 for the common MARC/ISO 639-2 codes; other values unchanged.
    static func language(_ code: String?) -> String? {
        guard var c = code?.lowercased() else { return nil }
        if c.hasPrefix("/languages/") { c = String(c.dropFirst("/languages/".count)) }
        let map = ["eng": "en", "fre": "fr", "fra": "fr", "spa": "es", "ger": "de", "deu": "de", "cat": "ca", "ita": "it",
                   "dut": "nl", "nld": "nl", "por": "pt", "jpn": "ja", "chi": "zh", "zho": "zh", "rus": "ru", "swe": "sv",
                   "dan": "da", "nor": "no", "fin": "fi", "pol": "pl", "glg": "gl", "baq": "eu", "eus": "eu"]
        return map[c] ?? c
    }

    /// http -> https for cover links (Google returns http; browsers and curl prefer https).
    static func secure(_ url: String?) -> String? {
        guard let url else { return nil }
        return url.hasPrefix("http://") ? "https://" + url.dropFirst("http://".count) : url
    }
}
