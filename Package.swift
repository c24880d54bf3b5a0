// swift-tools-version:6.0
import PackageDescription

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
        // Tesseract's OpenMP kept to the reading thread, set at run time (include/openmp.h).
        .target(name: "COpenMP"),
        .target(
            name: "ShelfScanKit",
            dependencies: [
                "CLeptonica", "CTesseract", "CZBar", "CCurl", "CFastPNG", "COpenMP",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .executableTarget(
            name: "shelfscan",
            dependencies: [
                "ShelfScanKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // CFastPNG's png_set_compression_level must be in the dynamic symbol table for
            // Leptonica's call to reach it (gold does not export it on its own: Leptonica's
            // reference is versioned).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=png_set_compression_level",
                                          "-Xlinker", "--export-dynamic-symbol=GOMP_parallel",
                                          "-Xlinker", "--export-dynamic-symbol=GOMP_parallel_sections",
                                          "-Xlinker", "--export-dynamic-symbol=GOMP_sections_next",
                                          "-Xlinker", "--export-dynamic-symbol=GOMP_sections_end_nowait"])]),
        .testTarget(
            name: "ShelfScanKitTests",
            dependencies: ["ShelfScanKit"],
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=png_set_compression_level",
                                          "-Xlinker", "--export-dynamic-symbol=GOMP_parallel",
                                          "-Xlinker", "--export-dynamic-symbol=GOMP_parallel_sections",
                                          "-Xlinker", "--export-dynamic-symbol=GOMP_sections_next",
                                          "-Xlinker", "--export-dynamic-symbol=GOMP_sections_end_nowait"])]),
    ],
    swiftLanguageModes: [.v6]
)
