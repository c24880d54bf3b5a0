import Foundation
import Testing
@testable import ShelfScanKit

@Suite("shelfscan catalog", .enabled(if: CLI.available, "shelfscan executable not found beside the test bundle or in .build-tests/.build"),
       .timeLimit(.minutes(10)))
struct CatalogCLITests {
    @Test("import a CSV (any column order, a bad row, a qualified ISBN), count it, clear it; owned books stay")
    func importCountClear() async throws {
        let dir = try TemporaryDirectory()
        let csv = dir.file("cat.csv")
        try """
            ISBN13,Author,Book Title
            9780385121675,Stephen King,The Shining
            "9780451524935 (pbk.)","George Orwell",1984
            ,,
            ,"Bunge, Mario, 1919-2020",Las pseudociencias
            """.write(toFile: csv, atomically: true, encoding: .utf8)
        let library = ["--library", dir.file("lib.sqlite")]
        let imported = try await CLI.run(["catalog", "import", csv] + library, in: dir)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("4 rows read, 3 added"))
        #expect(imported.stdout.contains("row 4: no title and no valid ISBN"))
        #expect(try await CLI.run(["catalog", "count"] + library, in: dir).stdout == "3\n")

        let db = try LibraryDatabase.open(path: dir.file("lib.sqlite"))
        #expect(try db.count(ownedOnly: true) == 0)
        let orwell = try #require(try db.search("1984", includeCatalog: true).first)
        #expect(orwell.isbn13 == "9780451524935")
        #expect(orwell.owned == false)
        #expect(try db.search("pseudociencias", includeCatalog: true).first?.authors == ["Mario Bunge"])
        _ = try db.add(Book(title: "Dune", authors: ["Frank Herbert"]))

        let cleared = try await CLI.run(["catalog", "clear"] + library, in: dir)
        #expect(cleared.stdout == "removed 3 catalogue books\n")
        #expect(try await CLI.run(["catalog", "count"] + library, in: dir).stdout == "0\n")
        #expect(try db.count(ownedOnly: true) == 1)
    }

    @Test("a file that cannot be read, or has no title/ISBN column: one line naming it, failure status")
    func badFiles() async throws {
        let dir = try TemporaryDirectory()
        let library = ["--library", dir.file("lib.sqlite")]
        let missing = try await CLI.run(["catalog", "import", dir.file("nope.csv")] + library, in: dir)
        #expect(missing.status != 0)
        #expect(missing.stderrLines.count == 1)
        #expect(missing.stderr.contains("nope.csv"))
        let wrong = dir.file("wrong.csv")
        try "foo,bar\n1,2\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        let bad = try await CLI.run(["catalog", "import", wrong] + library, in: dir)
        #expect(bad.status != 0)
        #expect(bad.stderrLines.count == 1)
        #expect(bad.stderr.contains("wrong.csv"))
    }
}
