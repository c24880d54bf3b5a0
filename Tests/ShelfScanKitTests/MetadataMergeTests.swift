import Foundation
import Testing
@testable import ShelfScanKit

@Suite("Metadata merge rules")
struct MetadataMergeTests {
    static let openLibrary = BookMetadata(
        isbn13: "9780143039952", isbn10: "0143039954", title: "The Odyssey (Penguin Classics Deluxe Edition)",
        authors: ["Homer"], publisher: "Penguin Classics", year: 2006, pageCount: nil, language: nil,
        categories: ["Epic poetry", "Greek mythology"], description: "Short.",
        coverURL: "https://covers.openlibrary.org/b/id/1-L.jpg", sources: [.openlibrary])
    static let google = BookMetadata(
        isbn13: "9780143039952", isbn10: "0143039954", title: "The Odyssey", subtitle: "Translated by Robert Fagles",
        authors: ["Homer", "Robert Fagles", "Bernard Knox"], publisher: "Penguin", year: 1996, pageCount: 541, language: "en",
        categories: ["poetry", "EPIC POETRY", "Classics"], description: "A much longer description of the epic.",
        coverURL: "https://books.google.com/cover.jpg", sources: [.googlebooks])

    @Test("combine: shortest title, longest author list, earliest year, union of categories, longest description, first cover")
    func combine() throws {
        let m = try #require(MetadataMerge.combine([Self.openLibrary, Self.google]))
        #expect(m.title == "The Odyssey")
        #expect(m.subtitle == "Translated by Robert Fagles")  // the first given
        #expect(m.authors == ["Homer", "Robert Fagles", "Bernard Knox"])
        #expect(m.year == 1996)
        #expect(m.publisher == "Penguin Classics")  // first source that has one
        #expect(m.pageCount == 541 && m.language == "en")  // filled from the later source
        #expect(m.categories == ["Epic poetry", "Greek mythology", "poetry", "Classics"])  // case-insensitive union
        #expect(m.description == "A much longer description of the epic.")
        #expect(m.coverURL == "https://covers.openlibrary.org/b/id/1-L.jpg")
        #expect(m.sources == [.openlibrary, .googlebooks])
    }

    @Test("combine: order matters only for first-wins fields; a missing cover is taken from the next source")
    func combineOrder() throws {
        var noCover = Self.openLibrary
        noCover.coverURL = nil
        noCover.year = nil
        let m = try #require(MetadataMerge.combine([noCover, Self.google]))
        #expect(m.coverURL == "https://books.google.com/cover.jpg")
        #expect(m.year == 1996)
        let reversed = try #require(MetadataMerge.combine([Self.google, Self.openLibrary]))
        #expect(reversed.title == "The Odyssey" && reversed.year == 1996)
        #expect(reversed.publisher == "Penguin" && reversed.coverURL == "https://books.google.com/cover.jpg")
        #expect(reversed.sources == [.googlebooks, .openlibrary])
    }

    @Test("combine: nothing gives nil; one record is itself; at most 8 categories; an empty title never wins")
    func combineEdges() throws {
        #expect(MetadataMerge.combine([]) == nil)
        #expect(MetadataMerge.combine([Self.google]) == Self.google)
        var many = Self.google
        many.categories = (1...10).map { "c\($0)" }
        var emptyTitle = Self.openLibrary
        emptyTitle.title = ""
        let m = try #require(MetadataMerge.combine([Self.openLibrary, many, emptyTitle]))
        #expect(m.categories.count == 8)
        #expect(m.title == "The Odyssey")
    }

    @Test("fill: never overwrites library data; fills only empty fields")
    func fill() {
        let mine = Book(id: 7, isbn: ISBN("9780143039952"), title: "Odyssey (my copy)", authors: ["Homer"], publisher: nil,
                        year: 2001, categories: ["Favourites"], source: "manual", readingStatus: .read, rating: 5, notes: "gift")
        let filled = MetadataMerge.fill(mine, with: Self.google)
        #expect(filled.id == 7)
        #expect(filled.title == "Odyssey (my copy)")
        #expect(filled.authors == ["Homer"])
        #expect(filled.year == 2001)
        #expect(filled.categories == ["Favourites"])
        #expect(filled.publisher == "Penguin")
        #expect(filled.subtitle == "Translated by Robert Fagles")
        #expect(filled.pageCount == 541 && filled.language == "en")
        #expect(filled.description == Self.google.description && filled.coverURL == Self.google.coverURL)
        #expect(filled.readingStatus == .read && filled.rating == 5 && filled.notes == "gift" && filled.source == "manual")

        let bare = Book(isbn: nil, title: "")
        let described = MetadataMerge.fill(bare, with: Self.openLibrary)
        #expect(described.title == Self.openLibrary.title)
        #expect(described.authors == ["Homer"])
        #expect(described.isbn13 == "9780143039952" && described.isbn10 == "0143039954")
    }

    @Test("book(from:): a library record with the catalogue's data and source")
    func bookFromMetadata() {
        let b = MetadataMerge.book(from: Self.google)
        #expect(b.id == nil && b.title == "The Odyssey" && b.authors.count == 3)
        #expect(b.isbn13 == "9780143039952" && b.isbn10 == "0143039954")
        #expect(b.source == "googlebooks" && b.readingStatus == .wantToRead && b.owned)
        let noISBN = BookMetadata(isbn10: "0143039954", title: "x", sources: [])
        #expect(MetadataMerge.book(from: noISBN).source == "manual")
    }
}
