import ArgumentParser
import ShelfScanKit

// Tesseract's OpenMP reads OMP_THREAD_LIMIT once, at load time: set it and start again
// (costs one exec; without it OCR is 5-12x slower on two cores).
ProcessEnvironment.ensureSingleThreadedOpenMP()

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
