import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan catalog ...`: the reference catalogue, books known for matching spines but not owned.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Load, count and clear the reference catalogue that spines are matched against.",
        discussion: """
            Catalogue rows are kept in the library flagged as not owned: scans find them (reported with inLibrary false), \
            `library list` does not show them. Example: `shelfscan catalog import goodbooks.csv library_books.csv`.
            """,
        subcommands: [Import.self, Count.self, Clear.self, Match.self, Bench.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load CSV files whose header names a title, an author(s) and an ISBN column (any order, common spellings).",
            discussion: "Each file is one transaction. Rows already in the library (same ISBN, or the same title and author without an ISBN) are skipped.")
        @Argument(help: ArgumentHelp("The CSV files.", valueName: "file.csv")) var files: [String]
        @Flag(name: .shortAndLong, help: "List every skipped row with its reason.") var verbose = false
        @OptionGroup var library: LibraryOptions

        func validate() throws {
            if files.isEmpty { throw ValidationError("give at least one CSV file") }
        }

        func run() throws {
            let db = try library.open()
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CLIError("\(file): cannot be read; check the path")
                }
                let clock = ContinuousClock.now
                let result: LibraryExchange.ImportResult
                do {
                    result = try LibraryExchange.importCSV(String(decoding: data, as: UTF8.self), into: db, source: "catalog", owned: false)
                } catch {
                    throw CLIError("\(file): \(CLIError(describing: error).description)")
                }
                let rows = result.imported.count + result.duplicates.count + result.skipped.count
                let seconds = Double((ContinuousClock.now - clock).components.attoseconds) / 1e18 + Double((ContinuousClock.now - clock).components.seconds)
                print("\(file): \(rows) rows read, \(result.imported.count) added, \(result.duplicates.count) skipped as already present, "
                    + "\(result.skipped.count) skipped as unusable, \(result.warnings.count) ISBNs dropped (\(String(format: "%.1f", seconds)) s)")
                let problems = result.skipped + result.warnings
                for line in verbose ? problems : Array(problems.prefix(5)) { print("  \(line)") }
                if !verbose && problems.count > 5 { print("  ... \(problems.count - 5) more (--verbose lists them)") }
            }
            let total = try count(db)
            print("catalogue: \(total.catalog) books; library: \(total.owned) owned")
        }
    }

    struct Count: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print how many catalogue books (not owned) the library holds.")
        @OptionGroup var library: LibraryOptions

        func run() throws {
            guard let db = try library.openIfPresent() else { print(0); return }
            print(try count(db).catalog)
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every catalogue book; owned books stay.")
        @OptionGroup var library: LibraryOptions

        func run() throws {
            guard let db = try library.openIfPresent() else { print("removed 0 catalogue books"); return }
            do {
                print("removed \(try db.clearCatalog()) catalogue books")
            } catch {
                throw CLIError(describing: error)
            }
        }
    }

    struct Match: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the books some lines of spine text name, as a scan would match them.",
            discussion: """
                Each argument is one line read off a spine, optionally with its OCR confidence as 90:TEXT. \
                Example: `shelfscan catalog match "THE SHINING" "STEPHEN KING"`. Scores of 0.6 and above are reported by scans.
                """)
        @Argument(help: ArgumentHelp("The spine's lines.", valueName: "line")) var lines: [String]
        @Option(help: "Books printed at most.") var top = 5
        @OptionGroup var library: LibraryOptions

        func validate() throws {
            if lines.isEmpty { throw ValidationError("give at least one line of text") }
        }

        func run() throws {
            guard let db = try library.openIfPresent() else {
                throw CLIError("\(library.path): no library here; import books or a catalogue first")
            }
            let region = RegionText(lines: lines.map { line in
                if let colon = line.firstIndex(of: ":"), let confidence = Double(line[..<colon]) {
                    return TextLine(text: String(line[line.index(after: colon)...]), confidence: confidence)
                }
                return TextLine(text: line)
            })
            let matcher: BookMatcher
            do { matcher = try BookMatcher(library: db, cache: IndexCache.standard()) } catch { throw CLIError(describing: error) }
            let matches = matcher.matches(for: region, limit: top)
            if matches.isEmpty { print("no book scores \(BookMatcher.floor) or more") }
            for m in matches {
                let authors = m.book.authors.isEmpty ? "" : " by " + m.book.authors.joined(separator: ", ")
                print(String(format: "%.2f  %@%@  (title %.2f, author %@, matched \"%@\")%@", m.score, m.book.title, authors, m.titleScore,
                             m.authorScore.map { String(format: "%.2f", $0) } ?? "-", m.matchedText, m.book.owned ? "" : "  [catalogue]"))
            }
        }
    }

    /// Hidden: the figures in the README's matching table (run from a release build).
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Time the matcher on a padded catalogue.", shouldDisplay: false)
        @Argument(help: ArgumentHelp("Catalogue CSV files.", valueName: "file.csv")) var files: [String]
        @Option(help: "Books in all, padded with synthetic ones.") var total = 100_000
        @Option(help: "Spines matched.") var queries = 500
        @OptionGroup var library: LibraryOptions

        func run() throws {
            do {
                let r = try MatchBenchmark.run(catalogFiles: files, total: total, queries: queries)
                print(String(format: "books %d, index build %.2f s, RSS %.0f -> %.0f MB, match median %.3f ms, p90 %.3f ms, own book first %d/%d",
                             r.books, r.indexSeconds, r.residentMegabytesBefore, r.residentMegabytesAfter,
                             r.medianMilliseconds, r.p90Milliseconds, r.rankedFirst, r.queries))
                if let db = try library.openIfPresent() {
                    let clock = ContinuousClock.now
                    let matcher = try BookMatcher(library: db)
                    print(String(format: "library %@: %d rows loaded and indexed in %.2f s", library.path, matcher.count,
                                 MatchBenchmark.seconds(since: clock)))
                }
            } catch {
                throw CLIError(describing: error)
            }
        }
    }

    fileprivate static func count(_ db: LibraryDatabase) throws -> (catalog: Int, owned: Int) {
        do {
            let owned = try db.count(ownedOnly: true)
            return (try db.count(ownedOnly: false) - owned, owned)
        } catch {
            throw CLIError(describing: error)
        }
    }
}
