import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan bench`: the speed and memory table (see README, Performance).
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure speed and memory per stage, side by side with zbarimg and the tesseract CLI (use a release build).")

    @Option(help: ArgumentHelp("The rendered corpus.", valueName: "dir")) var sampleImages = "SampleImages"
    @Option(help: ArgumentHelp("A 12-megapixel shelf photo (scripts/make-sample-images.py --big-shelf FILE).", valueName: "file"))
    var bigShelf: String?
    @Option(help: ArgumentHelp("The shared corpora, for the 100k-book library (default ../shared/corpora when present).", valueName: "dir"))
    var shared: String?
    @Option(help: "Timed runs per figure, after one warm-up.") var runs = 5
    @Option(help: ArgumentHelp("Folder holding eng.traineddata (default: the project's Models/).", valueName: "dir"))
    var tessdata: String?
    @Flag(help: "Leave out zbarimg and the tesseract CLI.") var noPeers = false
    @Option(help: ArgumentHelp("Also write every figure as JSON to this file.", valueName: "file")) var json: String?

    func validate() throws {
        if runs < 1 { throw ValidationError("--runs must be at least 1") }
        if let bigShelf, !FileManager.default.fileExists(atPath: bigShelf) {
            throw ValidationError("\(bigShelf): no such file; make it with python3 scripts/make-sample-images.py --big-shelf \(bigShelf)")
        }
    }

    func run() throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        var options = Benchmark.Options(executable: executable, sampleImages: sampleImages,
                                        scratch: NSTemporaryDirectory() + "shelfscan-bench-\(UUID().uuidString)")
        options.runs = runs
        options.bigShelf = bigShelf
        let defaultShared = "../shared/corpora"
        options.sharedCorpora = shared ?? (FileManager.default.fileExists(atPath: defaultShared) ? defaultShared : nil)
        options.tessdata = tessdata
        options.peers = !noPeers
        let report: Benchmark.Report
        do {
            report = try Benchmark(options: options, log: { StandardError.line("bench: \($0)") }).run()
        } catch {
            throw CLIError(error.message)
        }
        print(report.markdown, terminator: "")
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do { try encoder.encode(report).write(to: URL(fileURLWithPath: json)) } catch {
                throw CLIError("\(json): cannot write the report (\(error.localizedDescription))")
            }
        }
    }
}
