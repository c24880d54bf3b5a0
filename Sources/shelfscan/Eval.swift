import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan eval DIR`: scores the pipeline on a labelled corpus (DIR/truth.jsonl).
struct Eval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure accuracy on a folder with a truth.jsonl.")

    @Argument(help: ArgumentHelp("Corpus folder holding truth.jsonl.", valueName: "dir"))
    var directory: String

    @Option(help: ArgumentHelp("Write every per-image result as JSON here.", valueName: "file"))
    var json: String?

    @Option(help: "Fail (exit 1) when fewer main codes than this fraction are decoded.")
    var minBarcodeRate: Double?

    @Option(help: "Fail when more wrong codes than this are reported.")
    var maxMisreads: Int?

    @Option(help: "Fail when more codes than this are reported on images without barcodes.")
    var maxFalsePositives: Int?

    @Option(help: "Fail when the book recall falls below this (0-1).")
    var minRecall: Double?

    @Option(help: "Fail when more invented books per fully labelled photo than this are returned.")
    var maxInvented: Double?

    @Option(help: "Fail when more unconfirmed books per photo (returned, not labelled: an upper bound on invention over every photo) than this are returned.")
    var maxUnconfirmed: Double?

    @Option(help: ArgumentHelp("Also match against these reference catalogues (CSV with title/author/ISBN columns), as distractors.", valueName: "file.csv"))
    var catalog: [String] = []

    @Option(help: ArgumentHelp("Match against this library instead of the corpus's own labelled books.", valueName: "path"))
    var library: String?

    @Option(help: ArgumentHelp("Write a picture of each image's findings here (green: right, red: wrong).", valueName: "dir"))
    var annotate: String?

    @Option(name: [.customShort("j"), .long], help: "Images scanned at once (default: one per core).")
    var jobs: Int?

    @Option(help: ReadBudgetArgument.help)
    var readBudget: ReadBudgetArgument?

    func run() async throws {
        var options = ScanOptions()
        if let jobs { options.concurrency = max(1, jobs) }
        if let readBudget { options.readBudget = readBudget.seconds }
        // Figures measured without the second model are not the project's: say so.
        if let warning = ModelLocator.secondModelWarning(explicit: nil) { StandardError.line("shelfscan: warning: \(warning)") }
        // Offline always: eval never touches the network.
        let matchLibrary: LibraryDatabase
        do {
            matchLibrary = try library.map { try LibraryDatabase.open(path: $0) } ?? Evaluator.corpusLibrary(directory: directory)
            for file in catalog {
                guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("\(file): cannot be read; check the path") }
                _ = try LibraryExchange.importCSV(String(decoding: data, as: UTF8.self), into: matchLibrary, source: "catalog", owned: false)
            }
        } catch let error as CLIError { throw error } catch { throw CLIError(describing: error) }
        let evaluator = Evaluator(directory: directory, scanner: ShelfScanner(options: options, library: matchLibrary))
        if let annotate {
            do { try FileManager.default.createDirectory(atPath: annotate, withIntermediateDirectories: true) } catch {
                throw CLIError("\(annotate): cannot create the folder (\(error.localizedDescription))")
            }
        }
        let showProgress = StandardError.isTerminal
        let report: Evaluator.Report
        do {
            report = try await evaluator.run(progress: { done, total in
                if showProgress {
                    let width = 30, filled = width * done / max(total, 1)
                    let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
                    FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total)".utf8))
                    if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
                }
            }, result: { truth, result in
                if let annotate { Annotation.write(truth: truth, result: result, directory: directory, into: annotate) }
            })
        } catch {
            throw CLIError(error.message)
        }
        StandardOutput.write(report.markdown)
        if let json {
            do {
                try Data(ResultJSON.string(report, pretty: true).utf8).write(to: URL(fileURLWithPath: json))
            } catch {
                throw CLIError("\(json): cannot write the report (\(error.localizedDescription))")
            }
        }
        var failed: [String] = []
        if let minBarcodeRate, report.total.decodeRate < minBarcodeRate {
            failed.append(String(format: "barcode rate %.3f is below --min-barcode-rate %.3f", report.total.decodeRate, minBarcodeRate))
        }
        if let maxMisreads, report.total.misreads > maxMisreads {
            failed.append("\(report.total.misreads) wrong codes, over --max-misreads \(maxMisreads)")
        }
        if let minRecall, report.bookTotal.recall < minRecall {
            failed.append(String(format: "book recall %.3f is below --min-recall %.3f", report.bookTotal.recall, minRecall))
        }
        if let maxInvented, report.bookTotal.inventedPerImage > maxInvented {
            failed.append(String(format: "%.3f invented books per photo, over --max-invented %.3f", report.bookTotal.inventedPerImage, maxInvented))
        }
        if let maxUnconfirmed, report.bookTotal.unconfirmedPerImage > maxUnconfirmed {
            failed.append(String(format: "%.3f unconfirmed books per photo, over --max-unconfirmed %.3f",
                                 report.bookTotal.unconfirmedPerImage, maxUnconfirmed))
        }
        if let maxFalsePositives, report.total.falsePositives > maxFalsePositives {
            failed.append("\(report.total.falsePositives) false positives, over --max-false-positives \(maxFalsePositives)")
        }
        for f in failed { StandardError.line("shelfscan: eval gate failed: \(f)") }
        if !failed.isEmpty { throw ExitCode.failure }
    }
}

/// Pictures of what eval found: barcode boxes green when the code is in the truth, red when not.
enum Annotation {
    static func write(truth: TruthRecord, result: ImageResult, directory: String, into folder: String) {
        guard result.error == nil, let loaded = try? ImageLoader().load(path: directory + "/" + truth.image) else { return }
        let expected = Set(truth.expectedCodes.map(\.main))
        let boxes = result.barcodes.map { code -> (box: BoundingBox, rgb: (UInt8, UInt8, UInt8)) in
            (code.box, expected.contains(code.digits) ? (0, 200, 0) : (230, 0, 0))
        }
        let name = truth.image.replacingOccurrences(of: "/", with: "__")
        let base = (folder as NSString).appendingPathComponent((name as NSString).deletingPathExtension)
        try? loaded.image.annotated(boxes).writePNG(to: base + ".png")
        var legend = "\(truth.image)\nexpected: \(truth.barcodes.joined(separator: ", "))\n"
        for code in result.barcodes { legend += "barcode \(code.text) at \(code.box.x),\(code.box.y) \(expected.contains(code.digits) ? "right" : "WRONG")\n" }
        for book in result.books { legend += "book \(book.title ?? "?") \(book.isbn13 ?? "") \(String(format: "%.2f", book.confidence))\n" }
        legend += "labelled: \(truth.books.map(\.title).joined(separator: "; "))\n"
        try? Data(legend.utf8).write(to: URL(fileURLWithPath: base + ".txt"))
    }
}
