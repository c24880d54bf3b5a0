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
        .target(
            name: "ShelfScanKit",
            dependencies: [
                "CLeptonica", "CTesseract", "CZBar", "CCurl",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .executableTarget(
            name: "shelfscan",
            dependencies: [
                "ShelfScanKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "ShelfScanKitTests",
            dependencies: ["ShelfScanKit"]),
    ],
    swiftLanguageModes: [.v6]
)
