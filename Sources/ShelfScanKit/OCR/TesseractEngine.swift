import CFastPNG
import CLeptonica
import CLineInvert
import COpenMP
import CLSTMSteps
import CPageSteps
import CTesseract
import Foundation

/// How Tesseract should split the image into lines.
public enum PageLayout: String, Sendable, CaseIterable {
    /// Find blocks and columns itself.
    case auto
    /// One uniform block of text (a cover, a stack label).
    case block
    /// Exactly one line (a thin spine).
    case line
    /// Scattered text in no particular order.
    case sparse

    var mode: TessPageSegMode {
        switch self {
        case .auto: PSM_AUTO
        case .block: PSM_SINGLE_BLOCK
        case .line: PSM_SINGLE_LINE
        case .sparse: PSM_SPARSE_TEXT
        }
    }
}

/// How Tesseract turns gray into black and white.
public enum Thresholding: Sendable {
    /// Otsu over the whole image (Tesseract's default): best on evenly lit, sharp text.
    case global
    /// Sauvola, window by window: rescues crops where padding, glare or a neighbour's dark ink
    /// pulls a global threshold off (the whole spine turns black or white). The window is
    /// `localWindow` pixels, cut to the crop's short side.
    case local
    /// Sauvola with a window of `fineWindow` pixels, a line and a half of the crops' 32 px text:
    /// each letter against its own surroundings (letters on a busy picture, shade along a spine).
    case fineLocal

    /// `local`'s window, pixels: Tesseract's own (`thresholding_window_size`, 0.33 inch) at 300.
    /// `SHELFSCAN_LOCAL_WINDOW=N` for measuring.
    public static let localWindow = Double(ProcessInfo.processInfo.environment["SHELFSCAN_LOCAL_WINDOW"] ?? "") ?? 99

    /// `fineLocal`'s window, pixels. `SHELFSCAN_FINE_WINDOW=N` for measuring: on the real shelves
    /// (deadline off, as a second local reading on every spine still read as nothing, found /
    /// returned / wrong) 45 gave 421 / 442 / 21 and 23 gave 420 / 442 / 22 for a little more CPU,
    /// from 408 / 427 / 19 without.
    public static let fineWindow = Double(ProcessInfo.processInfo.environment["SHELFSCAN_FINE_WINDOW"] ?? "") ?? 45
}

/// One recognised word.
public struct OCRWord: Codable, Sendable {
    public let text: String
    /// Tesseract's confidence, 0-100.
    public let confidence: Double
    public let box: BoundingBox
}

/// One recognised line.
public struct OCRLine: Codable, Sendable {
    public let text: String
    /// Tesseract's confidence, 0-100.
    public let confidence: Double
    public let box: BoundingBox
    /// Its words, in reading order.
    public var words: [OCRWord] = []
}

/// What one recognition produced.
public struct OCRPage: Codable, Sendable {
    public let lines: [OCRLine]
    /// Tesseract's mean word confidence, 0-100.
    public let meanConfidence: Double
}

/// A Tesseract engine, initialised once (about 60 ms) and reused across images.
///
/// An engine is not thread-safe: use one per worker (see `OCREnginePool`).
/// `@unchecked Sendable` so that a pool can hand it from task to task; the pool guarantees that
/// only one task holds it at a time.
public final class TesseractEngine: @unchecked Sendable {
    private let api: OpaquePointer
    /// Recognitions run so far (what a reading strategy costs, in tests and traces).
    public private(set) var recognitions = 0
    /// A `recognize` deadline counts the reading thread's CPU time, with a wall-clock one ten
    /// times as long (a second at least) bounding a starved thread.
    public var cpuDeadline = TesseractEngine.cpuDeadlineDefault
    /// With `cpuDeadline`: the least the wall-clock backup allows, in ms.
    var wallBackupFloorMS = 1000
    /// Whether this engine skips Tesseract's inverted reading on lines of clearly dark letters
    /// on a light ground (see `invertByLine`, the default).
    public var invertsByLine = TesseractEngine.invertByLine
    /// Whether readings whose page layout never reads blobs' stroke widths go without them
    /// (`strokeWidthsUnneeded`; tests read both ways).
    public var skipsUnneededStrokeWidths = true
    /// Whether readings go without outlines' edge offsets where Tesseract reads with the LSTM
    /// alone (`readsWithLSTMAlone`; include/strokes.h): by default; `SHELFSCAN_EDGE_OFFSETS=compute`
    /// computes them (tests read both ways).
    public var skipsUnneededEdgeOffsets = TesseractEngine.edgeOffsetsSkipped
    static let edgeOffsetsSkipped = ProcessInfo.processInfo.environment["SHELFSCAN_EDGE_OFFSETS"] != "compute"
    /// Whether Tesseract settled on the LSTM alone for this engine's model (`mode` 1): only the
    /// legacy engine reads outlines' edge offsets.
    public let readsWithLSTMAlone: Bool
    /// Whether the last `recognize` was cut short by its CPU-time deadline (not the clock's).
    public private(set) var lastCutByCPU = false

    /// Loads the `eng` model from `tessdata`. The corresponding C function is `TessBaseAPIInit3`.
    /// `skippingAmbiguities`: whether the load leaves the legacy engine's ambiguity table out
    /// where the model is read by the LSTM alone (`skipsAmbiguities`; tests load both ways).
    public init(tessdata: String, language: String = ModelLocator.language,
                skippingAmbiguities: Bool = TesseractEngine.skipsAmbiguities) throws(ShelfScanError) {
        guard FileManager.default.fileExists(atPath: "\(tessdata)/\(language).traineddata") else {
            throw ShelfScanError(.modelMissing, "\(tessdata)/\(language).traineddata: model file missing; pass --tessdata DIR with the model, or install tesseract-ocr-\(language)")
        }
        Leptonica.silence()
        // Before any model loads: its weights are laid out for the kernel chosen (`intMatrix`).
        _ = shelfscan_int_matrix_install()
        _ = shelfscan_lstm_gates_install()
        // Development aid: SHELFSCAN_TESSERACT_INIT_VARIABLES="name=value,..." for init-only ones.
        let initPairs = (ProcessInfo.processInfo.environment["SHELFSCAN_TESSERACT_INIT_VARIABLES"] ?? "").split(separator: ",")
            .map { $0.split(separator: "=", maxSplits: 1).map(String.init) }.filter { $0.count == 2 }
        var names = initPairs.map { strdup($0[0]) }, values = initPairs.map { strdup($0[1]) }
        defer { for p in names + values { free(p) } }
        func load(skippingAmbiguities skip: Bool) -> (OpaquePointer, Int32) {
            let handle = TessBaseAPICreate()!
            // Tesseract otherwise prints "Estimating resolution" and debug lines on stderr.
            TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
            shelfscan_universal_ambigs_skip(skip ? 1 : 0)
            defer { shelfscan_universal_ambigs_skip(0) }
            let status = names.withUnsafeMutableBufferPointer { n in
                values.withUnsafeMutableBufferPointer { v in
                    TessBaseAPIInit4(handle, tessdata, language, OEM_DEFAULT, nil, 0, n.baseAddress, v.baseAddress, n.count, 0)
                }
            }
            return (handle, status)
        }
        // The legacy engine's table of ambiguities left unloaded (include/ambigs.h) unless the
        // model came out read by more than the LSTM (one with the legacy engine's parts): then
        // loaded again with it.
        var (handle, status) = load(skippingAmbiguities: skippingAmbiguities)
        if status == 0 && skippingAmbiguities && Self.engineMode(handle) != Int32(OEM_LSTM_ONLY.rawValue) {
            TessBaseAPIDelete(handle)
            (handle, status) = load(skippingAmbiguities: false)
        }
        guard status == 0 else {
            // Freed here, and `api` never set: `deinit` does not run for an object whose
            // initialiser threw before all its properties were set.
            TessBaseAPIDelete(handle)
            throw ShelfScanError(.modelMissing, "\(tessdata)/\(language).traineddata: Tesseract could not load it (corrupt or wrong version); reinstall the model")
        }
        // For `Thresholding.local` (Sauvola): a lower k than the default 0.34 keeps thin strokes.
        TessBaseAPISetVariable(handle, "thresholding_kfactor", "0.2")
        // Development aid: SHELFSCAN_TESSERACT_VARIABLES="name=value,name=value".
        for pair in (ProcessInfo.processInfo.environment["SHELFSCAN_TESSERACT_VARIABLES"] ?? "").split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { TessBaseAPISetVariable(handle, parts[0], parts[1]) }
        }
        api = handle
        readsWithLSTMAlone = Self.engineMode(handle) == Int32(OEM_LSTM_ONLY.rawValue)
        if readsWithLSTMAlone && Self.skipsPitchAnalysis {
            TessBaseAPISetVariable(handle, "textord_all_prop", "1")
        }
        // After the first Init: Tesseract's function-local statics (the dictionary cache) are
        // registered by then, so this handler runs before their destructors.
        _ = ExitGuard.installed
    }

    deinit {
        ExitGuard.lock.lock()
        defer { ExitGuard.lock.unlock() }
        // Once the process is exiting, Tesseract's statics are being destroyed: End would use
        // them. Leaked instead; the process is going away.
        guard !ExitGuard.exiting else { return }
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// Whether Tesseract's per-line PNG round trip has run uncompressed in this process
    /// (`CFastPNG`): true once a recognition has gone through it, false where the executable
    /// does not export its `png_set_compression_level` (the link flag in Package.swift).
    public static var storesLinesUncompressed: Bool { shelfscan_fast_png_active() != 0 }

    /// Whether Tesseract's inverted second reading of an unsure line is skipped for lines of
    /// clearly dark letters on a light ground (`CLineInvert`): off by default, on with
    /// `SHELFSCAN_INVERT_LINES=gate` (13% fewer inverted readings on the real shelves, the same
    /// books, but three books fewer on their copies scaled to 85%: see README, Accuracy,
    /// forty-third session). Never with `tessedit_do_invert` in `SHELFSCAN_TESSERACT_VARIABLES`.
    static let invertByLine = ProcessInfo.processInfo.environment["SHELFSCAN_INVERT_LINES"] == "gate"
        && !(ProcessInfo.processInfo.environment["SHELFSCAN_TESSERACT_VARIABLES"] ?? "").contains("tessedit_do_invert")

    /// Whether the layout analysis takes every row of text for proportional text instead of
    /// measuring whether its letters stand at a fixed pitch (`textord_all_prop`; Tesseract's
    /// `tune_row_pitch` over each row's projection: 1.3-1.5% of a 12 MP shelf photo's CPU in
    /// `perf`): by default, where the model is read by the LSTM alone, which reads a row's words
    /// joined into one line either way (`ROW_RES` merges them unless a gap of twice the line's
    /// height parts them); `SHELFSCAN_PITCH=measure` measures it as the library does. Measured
    /// on 34 photos (15 real shelves, the SampleImages shelves and covers): the same JSON, every
    /// line, box and confidence. Tesseract keeps the setting for the whole process.
    public static let skipsPitchAnalysis = ProcessInfo.processInfo.environment["SHELFSCAN_PITCH"] != "measure"

    /// Whether this process's layout analysis skips the fixed-pitch analysis (`textord_all_prop`
    /// as Tesseract holds it now).
    public var pitchAnalysisSkipped: Bool {
        var value: Int32 = 0
        return TessBaseAPIGetBoolVariable(api, "textord_all_prop", &value) != 0 && value != 0
    }

    /// Whether engine loads leave the legacy engine's ambiguity table unloaded where the model
    /// is read by the LSTM alone (include/ambigs.h; 20-45 ms of a core per engine): by default;
    /// `SHELFSCAN_UNIVERSAL_AMBIGS=load` loads it as the library does.
    public static let skipsAmbiguities = ProcessInfo.processInfo.environment["SHELFSCAN_UNIVERSAL_AMBIGS"] != "load"

    /// Loads that left the table unloaded so far in this process (for tests).
    public static var ambiguityTablesSkipped: Int { shelfscan_universal_ambigs_skipped() }

    /// The engine mode Tesseract settled on (`tessedit_ocr_engine_mode`: 1 the LSTM alone).
    static func engineMode(_ handle: OpaquePointer) -> Int32 {
        var mode: Int32 = -1
        return TessBaseAPIGetIntVariable(handle, "tessedit_ocr_engine_mode", &mode) != 0 ? mode : -1
    }

    /// This engine's mode (`engineMode`).
    public var mode: Int32 { Self.engineMode(api) }

    /// `SHELFSCAN_STROKE_WIDTHS`: `measure` measures blobs' stroke widths in every reading (the
    /// library's way); `skip` skips them in every one (for measuring).
    static let strokeWidths = ProcessInfo.processInfo.environment["SHELFSCAN_STROKE_WIDTHS"]

    /// Whether a reading with this page layout goes without blobs' stroke widths
    /// (include/strokes.h). Tesseract 5.3.0 reads them only in its column and neighbour finding
    /// (`StrokeWidth`, `ColumnFinder`, the table finder), which only its automatic page
    /// segmentation runs: `auto` and `sparse`; a single block or line goes to `TextordPage`
    /// straight, and the blobs are gone before recognition. (The fields are private to
    /// `BLOBNBOX`, read only in `MatchingStrokeWidth` and `DefiniteIndividualFlow`.)
    static func strokeWidthsUnneeded(_ layout: PageLayout) -> Bool {
        switch strokeWidths {
        case "measure": false
        case "skip": true
        default: layout == .block || layout == .line
        }
    }

    /// Blocks whose outlines' edge offsets were skipped and computed so far in this process (for tests).
    public static var edgeOffsetCounts: (skipped: Int, computed: Int) {
        var skipped = 0, computed = 0
        shelfscan_edge_offsets_counts(&skipped, &computed)
        return (skipped, computed)
    }

    /// Blobs whose stroke widths were skipped and measured so far in this process (for tests).
    public static var strokeWidthCounts: (skipped: Int, measured: Int) {
        var skipped = 0, measured = 0
        shelfscan_stroke_widths_counts(&skipped, &measured)
        return (skipped, measured)
    }

    /// Whether Tesseract's line pictures go through `CLineInvert` in this process (the
    /// interposition took): false where the executable does not export `pixWriteMem`.
    public static var decidesInversionByLine: Bool { shelfscan_line_invert_active() != 0 }

    /// This thread's counts since it started: lines Tesseract read, lines it read without its
    /// inverted second reading, and inverted readings it ran.
    public static var lineInversionCounts: (lines: Int, gated: Int, inverted: Int) {
        var lines = 0, gated = 0, inverted = 0
        shelfscan_line_invert_counts(&lines, &gated, &inverted)
        return (lines, gated, inverted)
    }

    /// Who runs the smallest steps of Tesseract's LSTM, its walk through its arrays
    /// (`StrideMap::Index`), its int8 stores (`NetworkIO::WriteTimeStepPart`), its maxpool
    /// (`NetworkIO::MaxpoolTimeStep`) and its first layer's convolution (`Convolve::Forward`):
    /// the executable's definitions (`CLSTMSteps`: `.own`, the same readings for about a quarter
    /// less CPU on shelf photos), or the library's (`.library`: another libtesseract than the
    /// 5.3.0 whose layout was checked, a probe that disagreed, or `SHELFSCAN_LSTM_STEPS=off`);
    /// `.unreached` before the first recognition, or where the executable does not export them.
    public enum LSTMSteps: Sendable { case unreached, own, library }

    /// Which code does a piece of Tesseract's work in this process: the executable's (`own`) or
    /// the library's; `undecided` until the first engine is made.
    public enum OwnOrLibrary: Sendable {
        case undecided, own, library

        /// From a C switch's state: 1 the executable's, 2 the library's, 0 not decided yet.
        init(state: Int32) {
            self = state == 1 ? .own : state == 2 ? .library : .undecided
        }
    }

    /// Who multiplies Tesseract's int8 weights by each time step's inputs: the executable's
    /// kernel (`.own`, `CLSTMSteps/intmatrix.c`: the same sums and readings; AVX-512 VNNI, 64
    /// products per instruction, where the processor has it, else AVX2 on the library's own
    /// weight layout, about a fifth faster than the library's), or the library's own
    /// (`.library`: no AVX2, another libtesseract than 5.3.0, a probe that disagreed, or
    /// `SHELFSCAN_INT_MATRIX=off`); chosen once, when the first engine is made, before any model
    /// is laid out for it (`.undecided` before that).
    public static var intMatrix: OwnOrLibrary { OwnOrLibrary(state: shelfscan_int_matrix_state()) }

    /// How many of `trials` random products the executable's and the library's int8 kernels
    /// disagree on (nil where the executable's cannot run here).
    public static func intMatrixDisagreements(trials: Int, seed: UInt32) -> Int? {
        let n = shelfscan_int_matrix_compare(Int32(trials), seed)
        return n < 0 ? nil : n
    }

    /// The same for the executable's AVX2 kernel, whichever this processor runs (nil without
    /// AVX2 or with another libtesseract).
    public static func intMatrixAVX2Disagreements(trials: Int, seed: UInt32) -> Int? {
        let n = shelfscan_int_matrix_compare_avx2(Int32(trials), seed)
        return n < 0 ? nil : n
    }

    /// Who computes the gates of each step of Tesseract's LSTMs (each gate's product and its
    /// tanh or logistic): the executable (`.own`, `CLSTMSteps/lstmgates.c`: the same arithmetic
    /// eight values at a time), or the library (`.library`: no AVX2, another libtesseract
    /// than Debian's 5.3.0, a check that disagreed, or `SHELFSCAN_LSTM_GATES=off`); `.undecided`
    /// before the first engine is made.
    public static var lstmGates: OwnOrLibrary { OwnOrLibrary(state: shelfscan_lstm_gates_state()) }

    /// Makes the executable compute the LSTM gates (`own`, where its checks passed) or the
    /// library (for tests: both give the same readings).
    @discardableResult
    public static func useOwnLSTMGates(_ own: Bool) -> OwnOrLibrary {
        _ = shelfscan_lstm_gates_use(own ? 1 : 0)
        return lstmGates
    }

    /// The gates' self-check so far: regions computed both ways, and how many differed.
    public static var lstmGateChecks: (regions: Int, differed: Int) {
        var regions = 0, differed = 0
        shelfscan_lstm_gates_checked(&regions, &differed)
        return (regions, differed)
    }

    /// How many of `count` random values the executable's tanh and logistic and the library's
    /// differ on (nil where the executable's cannot run here).
    public static func lstmGateDisagreements(count: Int, seed: UInt32) -> Int? {
        let n = shelfscan_lstm_gates_compare(Int32(count), seed)
        return n < 0 ? nil : n
    }

    /// Who computes each picture's gray histogram and applies Otsu's threshold to it
    /// (`tesseract::HistogramRect`, `ImageThresholder::ThresholdRectToPix`): the executable
    /// (`.own`, `CPageSteps`: the same counts and bits, without the library's per-pixel waits and
    /// branches) or the library (`.library`: another libtesseract than Debian 12's 5.3.0, a probe
    /// that disagreed, or `SHELFSCAN_PAGE_STEPS=off`); `.undecided` before the first picture.
    public static var pageSteps: OwnOrLibrary { OwnOrLibrary(state: shelfscan_page_steps_state()) }

    /// Makes the executable threshold pictures (`own`, where its checks passed) or the library.
    @discardableResult
    public static func useOwnPageSteps(_ own: Bool) -> OwnOrLibrary {
        _ = shelfscan_page_steps_use(own ? 1 : 0)
        return pageSteps
    }

    /// How many of `trials` random pictures and rectangles the executable's histogram and
    /// threshold and the library's differ on (nil where the executable's cannot run here).
    public static func pageStepDisagreements(trials: Int, seed: UInt32) -> Int? {
        let n = shelfscan_page_steps_compare(Int32(trials), seed)
        return n < 0 ? nil : n
    }

    /// Who counts how often an outline winds round a point while Tesseract nests each line's
    /// outlines (`C_OUTLINE::winding_number`): the executable (`.own`, `CPageSteps/outlines.c`:
    /// the same answers, four chain steps at a time away from the point's row) or the library
    /// (`.library`: another libtesseract than Debian 12's 5.3.0, a probe that disagreed, or
    /// `SHELFSCAN_WINDING=off`); `.undecided` before the first call.
    public static var windingNumbers: OwnOrLibrary { OwnOrLibrary(state: shelfscan_winding_state()) }

    /// Makes the executable count winding numbers (`own`, where its checks passed) or the library.
    @discardableResult
    public static func useOwnWindingNumbers(_ own: Bool) -> OwnOrLibrary {
        _ = shelfscan_winding_use(own ? 1 : 0)
        return windingNumbers
    }

    /// How many of `trials` random chains (eight points each) the executable's and the
    /// library's winding numbers differ on (nil where the executable's cannot run here).
    public static func windingDisagreements(trials: Int, seed: UInt32) -> Int? {
        let n = shelfscan_winding_compare(Int32(trials), seed)
        return n < 0 ? nil : n
    }

    /// Winding numbers the executable has answered on the calling thread (a reading runs on the
    /// thread that asks for it).
    public static var ownWindingNumbers: Int { shelfscan_winding_answered() }

    /// The libtesseract this process runs, as it names itself (`TessVersion`).
    public static var libraryVersion: String { String(cString: TessVersion()) }

    public static var lstmSteps: LSTMSteps {
        switch shelfscan_lstm_steps_state() {
        case 1: .own
        case 2: .library
        default: .unreached
        }
    }

    /// Makes the executable's LSTM steps do the work (`own`, where its checks passed) or hand
    /// every call to the library's (for tests: both give the same readings).
    @discardableResult
    public static func useOwnLSTMSteps(_ own: Bool) -> LSTMSteps {
        _ = shelfscan_lstm_steps_use(own ? 1 : 0)
        return lstmSteps
    }

    /// How many of the LSTM's poolings (`Maxpool::Forward`) the executable's definition has done
    /// in this process.
    public static var ownPoolings: Int { shelfscan_lstm_steps_poolings() }

    /// How many line pictures the executable's `NetworkIO::Copy2DImage` has copied into the
    /// LSTM's input in this process.
    public static var ownLineCopies: Int { shelfscan_lstm_steps_copies() }

    /// How many of `trials` random cases the executable's and the library's LSTM steps disagree
    /// on (nil when the library's are not found).
    public static func lstmStepDisagreements(trials: Int, seed: UInt32) -> Int? {
        let n = shelfscan_lstm_steps_compare(Int32(trials), seed)
        return n < 0 ? nil : n
    }

    /// Whether `image` (8-bit gray) is clearly dark letters on a light ground: the test each
    /// line's picture gets before Tesseract reads it (see `invertByLine`).
    static func darkOnLight(_ image: PixImage) -> Bool {
        image.withPix { shelfscan_line_dark_on_light(UnsafeMutableRawPointer($0)) != 0 }
    }

    /// The resolution (pixels per inch) Tesseract is told an image has unless asked otherwise:
    /// crops are scaled so their text is about 32 px high, 8 points at 300. `SHELFSCAN_DPI=N`
    /// for measuring (70: Tesseract estimates it; 0: none stated, so the crop's own, from the
    /// photo's file if it has one).
    static let sourceResolution = Int(ProcessInfo.processInfo.environment["SHELFSCAN_DPI"] ?? "") ?? 300

    /// `SHELFSCAN_FAST_PNG=off` leaves Tesseract's line PNGs compressed (for measuring).
    static let fastPNG = ProcessInfo.processInfo.environment["SHELFSCAN_FAST_PNG"] != "off"

    /// A reading's deadline counts the reading thread's CPU time, not the clock's (see
    /// `recognize`, `cpuDeadline`), so that what is read does not depend on how busy the machine
    /// is; `SHELFSCAN_CPU_DEADLINE=off` counts it on the clock (for measuring).
    static let cpuDeadlineDefault = !["off", "0"].contains(ProcessInfo.processInfo.environment["SHELFSCAN_CPU_DEADLINE"] ?? "")

    /// Recognises the text in `image`, line by line. The corresponding C function is `TessBaseAPIRecognize`.
    /// `deadline` (milliseconds): Tesseract stops recognising words after it and returns what it
    /// has read so far (a picture read as dozens of lines of noise can otherwise take seconds).
    /// `resolution`: the pixels per inch Tesseract is told the image has (its page layout
    /// analysis is sized by it; a global threshold and a block layout hardly depend on it; the
    /// local thresholds' windows are set in pixels whatever it is): `sourceResolution` when nil.
    /// At 70 or under Tesseract estimates it from the size of the letters.
    public func recognize(_ image: PixImage, layout: PageLayout = .block, thresholding: Thresholding = .global,
                          deadline: Int? = nil, resolution: Int? = nil) throws(ShelfScanError) -> OCRPage {
        // Tesseract holds a clone of the image from SetImage to Clear: under the image's lock.
        try image.withPix { pix throws(ShelfScanError) in
            try recognize(pix, width: image.width, height: image.height, layout: layout,
                          thresholding: thresholding, deadline: deadline, resolution: resolution ?? Self.sourceResolution)
        }
    }

    private func recognize(_ pix: UnsafeMutablePointer<Pix>, width: Int, height: Int, layout: PageLayout,
                           thresholding: Thresholding, deadline: Int?, resolution: Int) throws(ShelfScanError) -> OCRPage {
        recognitions += 1
        // One thread per reading, whichever thread reads (see COpenMP).
        _ = shelfscan_openmp_serial()
        TessBaseAPISetPageSegMode(api, layout.mode)
        TessBaseAPISetVariable(api, "thresholding_method", thresholding == .global ? "0" : "2")
        // Tesseract measures the window in inches: at the stated resolution, or 70 when it
        // estimates one (it thresholds before estimating).
        let window = (thresholding == .fineLocal ? Thresholding.fineWindow : Thresholding.localWindow) / Double(max(resolution, 70))
        TessBaseAPISetVariable(api, "thresholding_window_size", String(format: "%.4f", window))
        TessBaseAPISetImage2(api, pix)
        if resolution > 0 { TessBaseAPISetSourceResolution(api, Int32(resolution)) }
        defer { TessBaseAPIClear(api) }
        // With `cpuDeadline`, the reading thread's CPU time is what runs out (checked where
        // Tesseract checks its deadline, word by word): a busy machine does not cut readings
        // short; a wall-clock deadline ten times as long (a second at least) still bounds a
        // starved thread.
        // The callback's state: [0] the CPU time limit, [1] set to 1 when it cut the reading.
        let cpuState = deadline != nil && cpuDeadline ? UnsafeMutablePointer<UInt64>.allocate(capacity: 2) : nil
        defer { cpuState?.deallocate() }
        lastCutByCPU = false
        let monitor = deadline.map { ms -> OpaquePointer? in
            let m = TessMonitorCreate()
            if let cpuState {
                cpuState[0] = ReadBudget.threadCPU() + UInt64(ms) * 1_000_000
                cpuState[1] = 0
                TessMonitorSetCancelThis(m, cpuState)
                TessMonitorSetCancelFunc(m) { state, _ in
                    guard let state = state?.assumingMemoryBound(to: UInt64.self) else { return false }
                    guard ReadBudget.threadCPU() > state[0] else { return false }
                    state[1] = 1
                    return true
                }
                TessMonitorSetDeadlineMSecs(m, Int32(max(ms * 10, wallBackupFloorMS)))
            } else {
                TessMonitorSetDeadlineMSecs(m, Int32(ms))
            }
            return m
        } ?? nil
        defer { if let monitor { TessMonitorDelete(monitor) } }
        // Tesseract writes each line as a PNG in memory and reads it back for its recogniser:
        // stored uncompressed meanwhile, a tenth of the OCR time saved (CFastPNG).
        shelfscan_fast_png(Self.fastPNG ? 1 : 0)
        shelfscan_line_invert_begin(UnsafeMutableRawPointer(api), invertsByLine ? 1 : 0)
        shelfscan_stroke_widths_unneeded(skipsUnneededStrokeWidths && Self.strokeWidthsUnneeded(layout) ? 1 : 0)
        shelfscan_edge_offsets_unneeded(skipsUnneededEdgeOffsets && readsWithLSTMAlone ? 1 : 0)
        let status = TessBaseAPIRecognize(api, monitor)
        shelfscan_edge_offsets_unneeded(0)
        shelfscan_stroke_widths_unneeded(0)
        shelfscan_line_invert_end()
        shelfscan_fast_png(0)
        lastCutByCPU = cpuState.map { $0[1] == 1 } ?? false
        // Past the deadline Recognize answers -1 but keeps the words it read: use them.
        guard status == 0 || monitor != nil else {
            throw ShelfScanError(.ocrFailed, "text recognition failed on a \(width)x\(height) image")
        }
        var lines: [OCRLine] = []
        if let iterator = TessBaseAPIGetIterator(api) {
            defer { TessResultIteratorDelete(iterator) }
            let page = TessResultIteratorGetPageIterator(iterator)
            // Word by word, starting a new line where Tesseract's lines begin.
            var current: (text: String, confidence: Double, box: BoundingBox)?
            var words: [OCRWord] = []
            func flush() {
                if let c = current, !c.text.isEmpty { lines.append(OCRLine(text: c.text, confidence: c.confidence, box: c.box, words: words)) }
                current = nil
                words = []
            }
            repeat {
                var l: Int32 = 0, t: Int32 = 0, r: Int32 = 0, b: Int32 = 0
                if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                    flush()
                    if let raw = TessResultIteratorGetUTF8Text(iterator, RIL_TEXTLINE) {
                        let text = String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
                        TessDeleteText(raw)
                        TessPageIteratorBoundingBox(page, RIL_TEXTLINE, &l, &t, &r, &b)
                        current = (text, Double(TessResultIteratorConfidence(iterator, RIL_TEXTLINE)),
                                   BoundingBox(x: Int(l), y: Int(t), width: Int(r - l), height: Int(b - t)))
                    }
                }
                guard let raw = TessResultIteratorGetUTF8Text(iterator, RIL_WORD) else { continue }
                let text = String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
                TessDeleteText(raw)
                if text.isEmpty { continue }
                TessPageIteratorBoundingBox(page, RIL_WORD, &l, &t, &r, &b)
                words.append(OCRWord(text: text, confidence: Double(TessResultIteratorConfidence(iterator, RIL_WORD)),
                                     box: BoundingBox(x: Int(l), y: Int(t), width: Int(r - l), height: Int(b - t))))
            } while TessResultIteratorNext(iterator, RIL_WORD) != 0
            flush()
        }
        return OCRPage(lines: lines, meanConfidence: Double(TessBaseAPIMeanTextConf(api)))
    }
}

/// Keeps engine teardown and process exit apart.
///
/// An engine's last reference can go on any thread: `shelfscan stream`'s Ctrl-C handler, for
/// one, is released by a Dispatch worker after the command has returned. `exit` on the main
/// thread meanwhile runs Tesseract's static destructors, among them the dictionary cache that
/// `TessBaseAPIEnd` hands its dictionaries back to: the heap was corrupted (a SIGSEGV in malloc,
/// seen once in a CI run of the stream tests). The `atexit` handler waits for a teardown under
/// way to finish, and engines released after it are not torn down.
private enum ExitGuard {
    static let lock = NSLock()
    nonisolated(unsafe) static var exiting = false
    static let installed: Void = {
        atexit {
            ExitGuard.lock.lock()
            ExitGuard.exiting = true
            ExitGuard.lock.unlock()
        }
    }()
}

/// A fixed set of engines, one per worker, started once and reused.
public actor OCREnginePool {
    private var idle: [TesseractEngine]
    private var waiting: [CheckedContinuation<TesseractEngine, Never>] = []
    public let size: Int

    /// Starts `size` engines (default: one per core).
    public init(tessdata: String, size: Int = ProcessInfo.processInfo.activeProcessorCount) throws(ShelfScanError) {
        var engines: [TesseractEngine] = []
        for _ in 0..<max(1, size) { engines.append(try TesseractEngine(tessdata: tessdata)) }
        idle = engines
        self.size = engines.count
    }

    /// Runs `body` with an engine no other task holds meanwhile.
    public func withEngine<T: Sendable>(_ body: @Sendable (TesseractEngine) throws -> T) async rethrows -> T {
        let engine = await checkout()
        defer { checkin(engine) }
        return try body(engine)
    }

    private func checkout() async -> TesseractEngine {
        if let engine = idle.popLast() { return engine }
        return await withCheckedContinuation { waiting.append($0) }
    }

    private func checkin(_ engine: TesseractEngine) {
        if waiting.isEmpty { idle.append(engine) } else { waiting.removeFirst().resume(returning: engine) }
    }
}
