import ArgumentParser
import ShelfScanKit

// Tesseract's OpenMP reads OMP_THREAD_LIMIT once, at load time: set it and start again
// (without it OCR is 5-12x slower on two cores). The exec costs about 25 ms of start-up, so only
// commands that may run Tesseract pay it. Scanning is the default command (`shelfscan photo.jpg`),
// so the list names the commands that never read text; add a command here if it never will.
let commandsWithoutTesseract: Set<String> = ["library", "import", "lookup", "enrich", "catalog", "help", "-h", "--help", "--version"]
if let command = CommandLine.arguments.dropFirst().first, !commandsWithoutTesseract.contains(command) {
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
