import Foundation

/// Finds the Tesseract model folder.
public enum ModelLocator {
    /// The language model shelfscan uses.
    public static let language = "eng"

    /// The tessdata folder: `explicit` when given (it must hold the model), else the first folder
    /// of `searchPath` that holds it (the project's `Models/`, else Debian's tessdata).
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

    /// A one-line warning when the second model is in none of the folders searched (nil when
    /// found): without it the spines the fast model reads as nothing get no second reading, and
    /// about 2% of the books on real shelves are missed (11 of 463, thirty-ninth session), with
    /// nothing else to show for it.
    public static func secondModelWarning(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard secondTessdata(explicit: explicit, environment: environment) == nil else { return nil }
        let looked = explicit.map { [$0] } ?? searchPath(environment: environment)
        return "\(secondLanguage).traineddata not found (looked in \(looked.joined(separator: ", "))): spines the fast model reads as nothing get no second reading and some books are missed; install with scripts/install.sh, or pass --tessdata DIR holding both models"
    }

    /// The folders searched, in order: `$SHELFSCAN_TESSDATA`; `Models/` beside the executable
    /// or up to four folders above it (`.build/<config>/` in development); `share/shelfscan/Models`
    /// of the prefix it is installed in (`scripts/install.sh`: `PREFIX/bin/shelfscan`); the
    /// current folder's `Models/`; the `Models/` of the checkout it was built from (a binary
    /// copied out of `.build`); Debian's tessdata.
    static func searchPath(environment: [String: String], executable: String? = nil) -> [String] {
        var list: [String] = []
        if let env = environment["SHELFSCAN_TESSDATA"], !env.isEmpty { list.append(env) }
        let exe = URL(fileURLWithPath: executable ?? CommandLine.arguments.first.map { $0.hasPrefix("/") ? $0 : ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? $0) } ?? "")
            .resolvingSymlinksInPath().deletingLastPathComponent()
        var dir = exe
        for _ in 0..<5 {
            list.append(dir.appendingPathComponent("Models").path)
            dir = dir.deletingLastPathComponent()
        }
        list.append(exe.deletingLastPathComponent().appendingPathComponent("share/shelfscan/Models").path)
        list.append(FileManager.default.currentDirectoryPath + "/Models")
        list.append(builtFrom)
        list.append("/usr/share/tesseract-ocr/5/tessdata")
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }

    /// `Models/` of the checkout this file was compiled in (Sources/ShelfScanKit/OCR/ is three
    /// folders below the package root).
    static let builtFrom = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Models").path
}
