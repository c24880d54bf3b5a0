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

    @Option(name: [.customShort("j"), .long], help: "Images scanned at once (default: one per core).")
    var jobs: Int?

    func run() async throws {
        var options = ScanOptions()
        if let jobs { options.concurrency = max(1, jobs) }
        let evaluator = Evaluator(directory: directory, scanner: ShelfScanner(options: options, library: nil))
        let showProgress = StandardError.isTerminal
        let report: Evaluator.Report
        do {
            report = try await evaluator.run { done, total in
                if showProgress {
                    let width = 30, filled = width * done / max(total, 1)
                    let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
                    FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total)".utf8))
                    if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
                }
            }
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
        if let maxFalsePositives, report.total.falsePositives > maxFalsePositives {
            failed.append("\(report.total.falsePositives) false positives, over --max-false-positives \(maxFalsePositives)")
        }
        for f in failed { StandardError.line("shelfscan: eval gate failed: \(f)") }
        if !failed.isEmpty { throw ExitCode.failure }
    }
}
