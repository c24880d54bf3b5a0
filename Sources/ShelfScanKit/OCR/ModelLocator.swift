import Foundation

/// Finds the Tesseract model folder.
public enum ModelLocator {
    /// The language model shelfscan uses.
    public static let language = "eng"

    /// The tessdata folder: `explicit` when given (it must hold the model), else `$SHELFSCAN_TESSDATA`,
    /// else the project's `Models/` found beside or above the executable or in the current folder,
    /// else Debian's `/usr/share/tesseract-ocr/5/tessdata`.
    public static func tessdata(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ShelfScanError) -> String {
        let file = "\(language).traineddata"
        if let explicit {
            guard FileManager.default.fileExists(atPath: explicit + "/" + file) else {
                throw ShelfScanError(.modelMissing, "\(explicit): no \(file) here; pass the folder that holds it with --tessdata, or omit --tessdata to use the project's Models/")
            }
            return explicit
        }
        let candidates = searchPath(environment: environment)
        if let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/" + file) }) {
            return found
        }
        throw ShelfScanError(.modelMissing, "\(file) not found (looked in \(candidates.joined(separator: ", "))); install tesseract-ocr-eng or pass --tessdata DIR")
    }

    /// The second model: Tesseract's "main" English LSTM (larger than the fast one, slower,
    /// and right on other spines), read where the fast one named nothing.
    public static let secondLanguage = "eng_main"

    /// The folder holding the second model: `explicit` when it holds it, else the first folder
    /// of the default search that does; nil when none does.
    public static func secondTessdata(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let file = "\(secondLanguage).traineddata"
        let candidates = explicit.map { [$0] } ?? searchPath(environment: environment)
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/" + file) }
    }

    static func searchPath(environment: [String: String]) -> [String] {
        var list: [String] = []
        if let env = environment["SHELFSCAN_TESSDATA"], !env.isEmpty { list.append(env) }
        // The executable lives in .build/<config>/ during development, or bin/ when installed.
        let exe = URL(fileURLWithPath: CommandLine.arguments.first.map { $0.hasPrefix("/") ? $0 : ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? $0) } ?? "")
            .resolvingSymlinksInPath().deletingLastPathComponent()
        var dir = exe
        for _ in 0..<5 {
            list.append(dir.appendingPathComponent("Models").path)
            dir = dir.deletingLastPathComponent()
        }
        list.append(FileManager.default.currentDirectoryPath + "/Models")
        list.append("/usr/share/tesseract-ocr/5/tessdata")
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }
}
