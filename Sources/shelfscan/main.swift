import ArgumentParser
import ShelfScanKit

// Tesseract's OpenMP reads OMP_THREAD_LIMIT once, at load time: set it and start again
// (without it OCR is 5-12x slower on two cores). The exec costs about 25 ms of start-up, so only
// commands that run Tesseract pay it; add a command here when it starts using OCR.
let commandsUsingTesseract: Set<String> = ["ocr"]
if let command = CommandLine.arguments.dropFirst().first, commandsUsingTesseract.contains(command) {
    ProcessEnvironment.ensureSingleThreadedOpenMP()
}

/// Parses and runs the command. Written out (rather than `@main`) so the re-exec above runs first;
/// inside an `async` function the async `run()` overload is the one chosen.
func launch() async {
    do {
        var command = try Shelfscan.parseAsRoot()
        if var asyncCommand = command as? AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    } catch {
        Shelfscan.exit(withError: error)
    }
}

await launch()
