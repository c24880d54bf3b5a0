import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan [scan] photo.jpg ...`: the books in each photo, best first, with their evidence.
struct Scan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan photos for books (the default command).")

    @Argument(help: ArgumentHelp("Image files (JPEG, PNG, TIFF, WebP, GIF, PNM).", valueName: "image"))
    var images: [String]

    @Option(name: .shortAndLong, help: "Output format: table, json, jsonl or csv.")
    var format: OutputFormat = .table

    @OptionGroup var library: LibraryOptions

    @OptionGroup var lookups: MetadataArguments

    @Flag(help: "Add the books found to the library (described by the catalogues when they can be).")
    var add = false

    @Flag(name: .long, help: "Only the first barcode pass (faster, finds less).")
    var noRetries = false

    @Flag(name: .long, help: .hidden)
    var allPasses = false

    @Option(name: [.customShort("j"), .long], help: "Images scanned at once (default: one per core).")
    var jobs: Int?

    @Option(help: "What the photos show: auto, shelf (spines, stacks), cover, or barcode (barcodes only, fastest).")
    var mode: ScanMode = .auto

    @Option(help: "Report at most this many books per image.")
    var top: Int?

    @Option(help: "Report only books with at least this confidence (0-1).")
    var minConfidence: Double = 0

    @Option(help: ArgumentHelp("Folder holding eng.traineddata, and eng_main.traineddata for the second reading of unnamed spines (default: the project's Models/).", valueName: "dir"))
    var tessdata: String?

    @Flag(help: "Print each image's time per stage on standard error.")
    var timings = false

    @Option(help: ReadBudgetArgument.help)
    var readBudget: ReadBudgetArgument?

    @Option(help: ArgumentHelp("Write a picture of each image's findings (regions, text, books) here.", valueName: "dir"))
    var annotate: String?

    func validate() throws {
        if images.isEmpty { throw ValidationError("give at least one image file, e.g. `shelfscan photo.jpg`") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let top, top < 1 { throw ValidationError("--top must be at least 1") }
        if !(0...1).contains(minConfidence) { throw ValidationError("--min-confidence must be between 0 and 1") }
    }

    func run() async throws {
        var options = ScanOptions()
        options.indexCache = IndexCache.standard()
        options.barcodes.retries = !noRetries
        options.barcodes.exhaustive = allPasses
        if let jobs { options.concurrency = jobs }
        options.mode = mode
        options.top = top
        options.minimumConfidence = minConfidence
        if let readBudget { options.readBudget = readBudget.seconds }
        if let tessdata {
            do { options.tessdata = try ModelLocator.tessdata(explicit: tessdata) } catch { throw CLIError(error.message) }
        }
        if mode != .barcode, let warning = ModelLocator.secondModelWarning(explicit: options.tessdata) {
            StandardError.line("shelfscan: warning: \(warning)")
        }
        if let annotate {
            do { try FileManager.default.createDirectory(atPath: annotate, withIntermediateDirectories: true) } catch {
                throw CLIError("\(annotate): cannot create the folder (\(error.localizedDescription)); choose another --annotate folder")
            }
        }
        let lookupOptions = lookups.options
        // Lookups are cached in the library file, so an online scan (or --add) creates it.
        let db = lookupOptions.offline && !add ? try library.openIfPresent() : try library.open()
        let metadata = await MetadataService(options: lookupOptions, cache: db)
        let scanner = ShelfScanner(options: options, library: db, metadata: metadata)
        let enricher = db.map { LibraryEnricher(library: $0, metadata: metadata) }
        var lookupProblems: [String] = []
        let renderer = format.renderer()
        StandardOutput.write(renderer.header())
        var failures = 0
        var first = true
        for await scanned in scanner.scan(paths: images) {
            var result = scanned
            lookupProblems += result.lookupProblems
            if timings { StandardError.line(StageTimingsLine.line(result)) }
            if let annotate, result.error == nil { FindingsPicture.write(result, into: annotate) }
            if add, let enricher { result = await Self.add(result, with: enricher) }
            if let error = result.error {
                failures += 1
                // The table shows the error inline; machine formats carry it in the record.
                if format != .table || !StandardError.isTerminal { StandardError.line("shelfscan: error: \(error.message)") }
            }
            StandardOutput.write(renderer.render(result, isFirst: first))
            first = false
        }
        StandardOutput.write(renderer.footer())
        // The matcher's index (a 25,000-book catalogue: about 10 ms of frees) and the engines go
        // when the process ends, not one by one before it.
        KeptUntilExit.keep(scanner)
        // Offline by choice: books without a cached answer are expected, not worth a warning.
        if !lookupOptions.offline, let problem = lookupProblems.first {
            StandardError.line("shelfscan: warning: \(lookupProblems.count) catalogue lookup\(lookupProblems.count == 1 ? "" : "s") got no answer (\(problem)); those books are shown by ISBN only")
        }
        if failures > 0 {
            StandardError.line("shelfscan: \(failures) of \(images.count) image\(images.count == 1 ? "" : "s") could not be scanned")
            throw ExitCode.failure
        }
    }
}

extension Scan {
    /// Adds the result's books that are not in the library, and marks them as in it.
    static func add(_ result: ImageResult, with enricher: LibraryEnricher) async -> ImageResult {
        var books = result.books
        for i in books.indices where !books[i].inLibrary {
            guard let isbn = books[i].isbn13.flatMap({ ISBN($0) }) else { continue }
            do {
                let added = try await enricher.add(isbn: isbn)
                switch added {
                case .described(let b), .queued(let b, _), .unknown(let b), .alreadyPresent(let b):
                    books[i].inLibrary = true
                    books[i].libraryId = b.id
                    books[i].readingStatus = b.readingStatus
                }
                StandardError.line("shelfscan: \(AddReport.line(added))")
            } catch {
                StandardError.line("shelfscan: error: \(result.image): could not add ISBN \(isbn.isbn13): \(error.message)")
            }
        }
        var updated = result
        updated.books = books
        return updated
    }
}

extension ScanMode: ExpressibleByArgument {}

/// `--timings`: one line per image with the time of each stage.
enum StageTimingsLine {
    static func line(_ result: ImageResult) -> String {
        let t = result.timings
        let parts = [("decode", t.decode), ("barcodes", t.barcodes), ("regions", t.regions), ("ocr", t.ocr),
                     ("matching", t.matching), ("lookup", t.lookup), ("total", t.total)]
        return "shelfscan: timings: \(result.image): " + parts.map { String(format: "%@ %.1f ms", $0.0, $0.1) }.joined(separator: ", ")
    }
}

/// Values left for the process's end to reclaim (a global is never destroyed).
enum KeptUntilExit {
    nonisolated(unsafe) private static var values: [Any] = []

    static func keep(_ value: Any) {
        values.append(value)
    }
}
