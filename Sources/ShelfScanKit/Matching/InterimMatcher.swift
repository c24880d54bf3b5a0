import Foundation

// INTERIM: replaced by the real matcher (branch `matching`). Same API shape.

public struct TextLine: Sendable { public var text: String; public var confidence: Double; public var height: Double
    public init(text: String, confidence: Double, height: Double) { self.text = text; self.confidence = confidence; self.height = height } }
public struct RegionText: Sendable { public var lines: [TextLine]; public init(lines: [TextLine]) { self.lines = lines } }
public struct BookMatch: Sendable { public let book: Book; public let score: Double; public let titleScore: Double; public let authorScore: Double?; public let matchedText: String }

public final class BookMatcher: Sendable {
    let books: [(Book, String)]
    public init(library: LibraryDatabase) throws(ShelfScanError) {
        books = try library.list().map { ($0, Self.norm($0.title)) }
    }
    public init(books: [Book]) { self.books = books.map { ($0, Self.norm($0.title)) } }
    static func norm(_ s: String) -> String {
        String(s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).map { $0.isLetter || $0.isNumber ? $0 : " " })
            .split(separator: " ").map(String.init).joined(separator: " ")
    }
    public func matches(for region: RegionText, limit: Int = 5) -> [BookMatch] {
        let text = " " + Self.norm(region.lines.map(\.text).joined(separator: " ")) + " "
        return books.filter { !$0.1.isEmpty && text.contains(" " + $0.1 + " ") }
            .map { BookMatch(book: $0.0, score: 0.9, titleScore: 1, authorScore: nil, matchedText: $0.1) }
            .prefix(limit).map { $0 }
    }
}
public enum MatchAssignment {
    public static func assign(_ perRegion: [[BookMatch]], minScore: Double) -> [BookMatch?] {
        var used = Set<Int64>()
        return perRegion.map { list in
            guard let m = list.first(where: { $0.score >= minScore && !used.contains($0.book.id ?? -1) }) else { return nil }
            used.insert(m.book.id ?? -1); return m
        }
    }
}
