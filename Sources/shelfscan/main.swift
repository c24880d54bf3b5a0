import ArgumentParser
import ShelfScanKit

// Tesseract's OpenMP is kept to the reading thread by ShelfScanKit itself (COpenMP): no
// OMP_THREAD_LIMIT and no re-exec needed.

/// Parses and runs the command; inside an `async` function the async `run()` overload is the one chosen.
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
