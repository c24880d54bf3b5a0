import ArgumentParser
import ShelfScanKit

/// `--read-budget SECONDS|off`: recognition seconds per OCR worker an image may spend beyond
/// its first readings (`ReadBudget`).
struct ReadBudgetArgument: ExpressibleByArgument {
    /// nil: no budget.
    let seconds: Double?

    init?(argument: String) {
        if argument == "off" {
            seconds = nil
        } else if let value = Double(argument), value >= 0, value.isFinite {
            seconds = value
        } else {
            return nil
        }
    }

    static let help = ArgumentHelp(
        "Seconds of recognition per core an image may spend beyond reading each spine once (retries, later passes), or off (default: off; SHELFSCAN_READ_BUDGET).",
        valueName: "seconds|off")
}
