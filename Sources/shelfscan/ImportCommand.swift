import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan import PATH... | -`: books in bulk from barcode photos, folders, ISBN lists or a scanner.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import books in bulk: barcode photos, folders of them, text/CSV files of ISBNs, or - for standard input.",
        discussion: "Resumable: each input is recorded (by content hash) in the same transaction as its books, "
            + "so an import stopped at any point continues where it stopped when run again. New books are stored "
            + "by ISBN and described by the catalogues afterwards (batched); with --offline they stay queued for "
            + "`shelfscan enrich`. Folders give their images; ISBN lists are named explicitly.")

    @Argument(help: ArgumentHelp("Image files, folders, ISBN lists (.txt, .csv), or - to read ISBNs from standard input.", valueName: "path"))
    var paths: [String]

    @Flag(help: "Count a book already in the library as one more copy.") var copies = false
    @Flag(help: "Show what would be imported; change nothing.") var dryRun = false
    @Option(help: "Reading status of new books: want-to-read, currently-reading or read.") var status: ReadingStatus = .wantToRead
    @Flag(help: "Print the report as JSON on standard output.") var json = false
    @Option(help: ArgumentHelp("Also write the report as JSON to this file.", valueName: "file")) var report: String?
    @Option(name: [.customShort("j"), .long], help: "Images decoded at once (default: one per core).") var jobs: Int?
    @OptionGroup var library: LibraryOptions
    @OptionGroup var lookups: MetadataArguments

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give files, folders, or - for standard input") }
        if paths.contains("-") && paths.count > 1 { throw ValidationError("- (standard input) cannot be combined with paths") }
    }

    func run() async throws {
        let db: LibraryDatabase
        do {
            db = dryRun ? (try library.openIfPresent() ?? LibraryDatabase.inMemory()) : try library.open()
        } catch { throw CLIError(describing: error) }
        var options = ImportOptions()
        options.countCopies = copies
        options.dryRun = dryRun
        options.status = status
        if let jobs { options.concurrency = max(1, jobs) }
        let importer = BulkImporter(library: db, options: options)
        let metadata = await MetadataService(options: lookups.options, cache: db)
        let started = ContinuousClock.now

        var result: ImportReport
        if paths == ["-"] {
            result = await importStandardInput(importer, metadata: metadata)
        } else {
            let (images, lists, problems) = BulkImporter.expand(paths)
            result = ImportReport()
            result.dryRun = dryRun
            result.unreadable = problems
            let bar = ProgressBar(label: "images", enabled: StandardError.isTerminal && !json)
            let fromImages = await importer.importImages(images) { bar.update($0) }
            bar.finish()
            result.append(fromImages)
            for list in lists { result.append(importer.importList(list)) }
            await importer.describeImported(&result, with: metadata)
        }
        result.seconds = (ContinuousClock.now - started).seconds
        if let report {
            do { try Data(ResultJSON.string(result, pretty: true).utf8).write(to: URL(fileURLWithPath: report)) } catch {
                throw CLIError("\(report): cannot write the report (\(error.localizedDescription))")
            }
        }
        if json { print(ResultJSON.string(result, pretty: true)) } else { print(ImportSummary.text(result), terminator: "") }
        if !result.unreadable.isEmpty { throw ExitCode.failure }
    }

    /// Lines from standard input (a pipe, or a USB scanner typing digits and Enter). Lines already
    /// waiting are written together; when none are waiting the batch is written at once, so a
    /// scanner's read is answered immediately.
    private func importStandardInput(_ importer: BulkImporter, metadata: MetadataService) async -> ImportReport {
        var report = ImportReport()
        report.dryRun = dryRun
        let interactive = isatty(0) == 1 || (StandardError.isTerminal && !json)
        var batch: [(number: Int, text: String)] = []
        var number = 0
        func flush() async {
            guard !batch.isEmpty else { return }
            var partial = ImportReport()
            partial.dryRun = dryRun
            do { try importer.importLines(batch, source: "stdin", into: &partial) } catch {
                partial.unreadable.append(.init(source: "stdin:\(batch[0].number)", message: error.message))
            }
            if interactive && !dryRun && !lookups.options.offline { await importer.describeImported(&partial, with: metadata) }
            if interactive { for line in ImportSummary.itemLines(partial) { StandardError.line(line) } }
            report.append(partial)
            batch.removeAll(keepingCapacity: true)
        }
        while let line = readLine(strippingNewline: true) {
            number += 1
            batch.append((number, line))
            if batch.count >= 500 || !StandardInput.hasPendingData { await flush() }
        }
        await flush()
        if !interactive || lookups.options.offline { await importer.describeImported(&report, with: metadata) }
        return report
    }
}

/// Whether more input is already waiting (a pipe with data), without blocking.
enum StandardInput {
    static var hasPendingData: Bool {
        var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }
}

/// A one-line progress bar on a terminal: done/total, rate, time left.
final class ProgressBar: @unchecked Sendable {
    // @unchecked: `update` is called from one task at a time (the import loop), and the lock
    // guards the only mutable state anyway.
    private let label: String
    private let enabled: Bool
    private let lock = NSLock()
    private var shown = false

    init(label: String, enabled: Bool) {
        self.label = label
        self.enabled = enabled
    }

    func update(_ p: ImportProgress) {
        guard enabled, p.total > 0 else { return }
        lock.withLock {
            let width = 30, filled = width * p.done / p.total
            let rate = p.elapsed > 0 ? Double(p.done) / p.elapsed : 0
            let eta = rate > 0 ? Double(p.total - p.done) / rate : 0
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
            FileHandle.standardError.write(Data(String(format: "\r[%@] %d/%d %@  %.1f/s  ETA %.0fs ", bar, p.done, p.total, label, rate, eta).utf8))
            shown = true
        }
    }

    func finish() {
        lock.withLock { if shown { FileHandle.standardError.write(Data("\n".utf8)) } }
    }
}

/// The human-readable import summary.
enum ImportSummary {
    static func text(_ r: ImportReport) -> String {
        var out = r.dryRun ? "Dry run: nothing was changed.\n" : ""
        let rate = r.seconds > 0 ? String(format: " (%.1f images/s, %.0f lines/s)", Double(r.images) / r.seconds, Double(r.lines) / r.seconds) : ""
        out += "\(r.images) images and \(r.lines) ISBN lines in \(String(format: "%.1f", r.seconds)) s\(rate)\n"
        func section(_ title: String, _ items: [ImportReport.Item], _ describe: (ImportReport.Item) -> String) {
            guard !items.isEmpty else { return }
            out += "\(title): \(items.count)\n"
            for item in items.prefix(200) { out += "  \(describe(item))\n" }
            if items.count > 200 { out += "  ... \(items.count - 200) more (see --report)\n" }
        }
        section(r.dryRun ? "would import" : "imported", r.imported) { "\($0.source): \($0.isbn13 ?? "")\($0.title.map { "  \($0)" } ?? "")" }
        section("already in the library", r.alreadyPresent) { "\($0.source): \($0.isbn13 ?? "") (#\($0.bookId ?? 0))" }
        section("extra copies counted", r.copiesAdded) { "\($0.source): \($0.isbn13 ?? "") (\($0.message ?? ""))" }
        section("not a book", r.notABook) { "\($0.source): \($0.code ?? "") (\($0.kind ?? ""))" }
        section("bad check digit", r.badChecksum) { "\($0.source): \($0.code ?? "")" }
        section("no barcode found", r.noBarcode) { $0.source }
        section("not a book code or ISBN", r.notAnISBN) { "\($0.source): \($0.code ?? "")" }
        section("not described yet, queued for `shelfscan enrich`", r.lookupFailed) { "\($0.source): \($0.isbn13 ?? "") (\($0.message ?? ""))" }
        section("unreadable", r.unreadable) { $0.message ?? $0.source }
        if !r.skipped.isEmpty { out += "skipped, finished by an earlier run: \(r.skipped.count)\n" }
        return out
    }

    /// One line per item, for answering a scanner as it reads.
    static func itemLines(_ r: ImportReport) -> [String] {
        r.imported.map { "\($0.isbn13 ?? ""): \(r.dryRun ? "would import" : "added")\($0.title.map { " \($0)" } ?? "")" }
            + r.alreadyPresent.map { "\($0.isbn13 ?? ""): already in the library (#\($0.bookId ?? 0))" }
            + r.copiesAdded.map { "\($0.isbn13 ?? ""): one more copy (\($0.message ?? ""))" }
            + r.notABook.map { "\($0.code ?? ""): not a book (\($0.kind ?? ""))" }
            + r.badChecksum.map { "\($0.code ?? ""): bad check digit, scan again" }
            + r.notAnISBN.map { "\($0.code ?? ""): not an ISBN" }
            + r.unreadable.map { $0.message ?? $0.source }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
