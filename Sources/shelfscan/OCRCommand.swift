import ArgumentParser
import Foundation
import ShelfScanKit

/// `shelfscan ocr IMAGE`: the text Tesseract reads in an image, line by line (a diagnostic).
struct OCR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the text lines Tesseract reads in images, with confidence and box.")

    @Argument(help: ArgumentHelp("Image files.", valueName: "image")) var images: [String]

    @Option(help: ArgumentHelp("Folder holding eng.traineddata (default: the project's Models/).", valueName: "dir"))
    var tessdata: String?

    @Option(help: "Turn the image clockwise by this many degrees first (0, 90, 180, 270).")
    var rotate: Int = 0

    @Option(help: "Page segmentation: auto, block, line or sparse.")
    var layout: PageLayout = .block

    func run() throws {
        let engine: TesseractEngine
        do {
            engine = try TesseractEngine(tessdata: try ModelLocator.tessdata(explicit: tessdata))
        } catch {
            throw CLIError(error.message)
        }
        var failures = 0
        for path in images {
            do {
                let image = try ImageLoader().load(path: path).image.rotated(quarterTurns: rotate / 90)
                let page = try engine.recognize(image, layout: layout)
                print("\(path): \(page.lines.count) lines, mean confidence \(Int(page.meanConfidence))")
                for line in page.lines {
                    print(String(format: "  %3.0f  %@  (%d,%d %dx%d)", line.confidence, line.text, line.box.x, line.box.y,
                                 line.box.width, line.box.height))
                }
            } catch {
                failures += 1
                StandardError.line("shelfscan: error: \(error.message)")
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }
}

extension PageLayout: ExpressibleByArgument {}
