// swift-tools-version:6.0
import PackageDescription

// Functions the executables define in place of a library's, which must be in their dynamic
// symbol table for the library's calls to reach them (gold does not export them on its own: the
// libraries' references are versioned): CFastPNG's png_set_compression_level (Leptonica's PNG
// writes), CLineInvert's pixWriteMem and pixInvert (Tesseract's line pictures and inverted
// readings), COpenMP's GOMP_* (Tesseract's OpenMP regions, run on the calling thread),
// CLSTMSteps's tesseract::StrideMap::Index methods, NetworkIO's WriteTimeStepPart and
// MaxpoolTimeStep, and Convolve::Forward and Maxpool::Forward (the LSTM's smallest steps), Copy2DImage (each line's
// grays into the LSTM's input), and FullyConnected's
// ForwardTimeStep and Forward (its tanh and logistic layers, lstmgates.c) and IntSimdMatrix::Init
// (the int8 kernel's weight sums, intmatrix.c), and CRotateAM's
// pixRotateAMGray (Leptonica's rotation of gray pictures), pixSauvolaBinarizeTiled (Tesseract's local threshold),
// pixSetMasked and pixDistanceFunction, pixScaleAreaMap, pixScaleGrayLI and pixUnsharpMaskingGray2D (the
// scaling of Tesseract's line pictures, pixScale's steps), and CPageSteps's tesseract::HistogramRect
// and ImageThresholder::ThresholdRectToPix (the threshold of each picture read) and
// UnicharAmbigs::LoadUniversal (the legacy engine's ambiguity table, skipped in LSTM-only loads),
// SetBlobStrokeWidth and TO_BLOCK::ComputeEdgeOffsets (skipped where nothing reads them) and
// C_OUTLINE::winding_number (outlines' nesting, four chain steps at a time).
let interposed = LinkerSetting.unsafeFlags(
    ["png_set_compression_level", "pixWriteMem", "pixInvert", "GOMP_parallel", "GOMP_parallel_sections", "GOMP_sections_next",
     "GOMP_sections_end_nowait",
     "_ZNK9tesseract9StrideMap5Index13MaxIndexOfDimENS_14FlexDimensionsE", "_ZNK9tesseract9StrideMap5Index7IsValidEv",
     "_ZNK9tesseract9StrideMap5Index6IsLastENS_14FlexDimensionsE", "_ZN9tesseract9StrideMap5Index9IncrementEv",
     "_ZN9tesseract9StrideMap5Index15SetTFromIndicesEv", "_ZN9tesseract9StrideMap5Index9AddOffsetEiNS_14FlexDimensionsE",
     "_ZN9tesseract9NetworkIO17WriteTimeStepPartEiiiPKf", "_ZN9tesseract9NetworkIO15MaxpoolTimeStepEiRKS0_iPi",
     "_ZN9tesseract8Convolve7ForwardEbRKNS_9NetworkIOEPKNS_15TransposedArrayEPNS_14NetworkScratchEPS1_",
     "_ZN9tesseract7Maxpool7ForwardEbRKNS_9NetworkIOEPKNS_15TransposedArrayEPNS_14NetworkScratchEPS1_",
     "_ZN9tesseract14FullyConnected15ForwardTimeStepEiPf", "_ZN9tesseract9NetworkIO11Copy2DImageEiNS_5ImageEffPNS_5TRandE", "pixRotateAMGray", "pixSauvolaBinarizeTiled",
     "_ZN9tesseract14FullyConnected7ForwardEbRKNS_9NetworkIOEPKNS_15TransposedArrayEPNS_14NetworkScratchEPS1_", "pixSetMasked", "pixDistanceFunction",
     "pixScaleAreaMap", "pixScaleGrayLI", "pixUnsharpMaskingGray2D",
     "_ZN9tesseract4LSTM7ForwardEbRKNS_9NetworkIOEPKNS_15TransposedArrayEPNS_14NetworkScratchEPS1_",
     "_ZN9tesseract13HistogramRectENS_5ImageEiiiiiPi",
     "_ZNK9tesseract13IntSimdMatrix4InitERKNS_16GENERIC_2D_ARRAYIaEERSt6vectorIaSaIaEERi",
     "_ZNK9tesseract16ImageThresholder18ThresholdRectToPixENS_5ImageEiRKSt6vectorIiSaIiEES6_PS1_",
     "_ZN9tesseract13UnicharAmbigs13LoadUniversalERKNS_10UNICHARSETEPS1_",
     "_ZN9tesseract18SetBlobStrokeWidthENS_5ImageEPNS_8BLOBNBOXE",
     "_ZN9tesseract8TO_BLOCK18ComputeEdgeOffsetsENS_5ImageES1_",
     "_ZNK9tesseract9C_OUTLINE14winding_numberENS_6ICOORDE",
    ].flatMap { ["-Xlinker", "--export-dynamic-symbol=\($0)"] })

let package = Package(
    name: "shelfscan",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "shelfscan", targets: ["shelfscan"]),
        .library(name: "ShelfScanKit", targets: ["ShelfScanKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLeptonica", pkgConfig: "lept",
            providers: [.apt(["libleptonica-dev"])]),
        .systemLibrary(
            name: "CTesseract", pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev"])]),
        .systemLibrary(
            name: "CZBar", pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // Tesseract's in-memory PNG round trip per text line, uncompressed (include/fastpng.h).
        .target(
            name: "CFastPNG",
            linkerSettings: [.linkedLibrary("dl")]),
        // Tesseract's inverted second reading, line by line (include/lineinvert.h).
        .target(
            name: "CLineInvert",
            linkerSettings: [.linkedLibrary("dl")]),
        // Tesseract's OpenMP regions run on the reading thread (openmp.c, include/openmp.h).
        .target(name: "COpenMP"),
        // What those targets share for their checks: the hash of a library function's machine
        // code, the probes' random numbers (include/selfcheck.h).
        .target(name: "CSelfCheck"),
        // Tesseract's LSTM's smallest steps, without calls between them (include/lstmsteps.h).
        // and the LSTM's gates, computed in its OpenMP sections regions (include/lstmgates.h).
        .target(
            name: "CLSTMSteps",
            dependencies: ["COpenMP", "CSelfCheck"],
            linkerSettings: [.linkedLibrary("dl")]),
        // Leptonica's rotation of gray pictures by area mapping, 16 pixels at a time (include/rotateam.h).
        .target(
            name: "CRotateAM",
            dependencies: ["CSelfCheck"],
            linkerSettings: [.linkedLibrary("dl")]),
        // Tesseract's histogram and threshold of each picture read, without its per-pixel
        // dependencies and branches (include/pagesteps.h); its legacy engine's ambiguity table
        // left unloaded where only the LSTM reads (include/ambigs.h).
        .target(
            name: "CPageSteps",
            dependencies: ["CSelfCheck"],
            linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "ShelfScanKit",
            dependencies: [
                "CLeptonica", "CTesseract", "CZBar", "CCurl", "CFastPNG", "CLineInvert", "COpenMP", "CLSTMSteps", "CRotateAM", "CPageSteps",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        .executableTarget(
            name: "shelfscan",
            dependencies: [
                "ShelfScanKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [interposed]),
        .testTarget(
            name: "ShelfScanKitTests",
            dependencies: ["ShelfScanKit"],
            linkerSettings: [interposed]),
    ],
    swiftLanguageModes: [.v6]
)
