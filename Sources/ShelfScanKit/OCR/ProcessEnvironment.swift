import Foundation

/// Process-level settings Tesseract needs before it is loaded.
public enum ProcessEnvironment {
    /// Re-executes the current program once with `OMP_THREAD_LIMIT=1` when it is not set.
    ///
    /// libgomp reads the variable in an ELF constructor, before `main`: setting it later has no
    /// effect, and without it Tesseract's OpenMP threads fight over two cores (5-12x slower).
    /// Returns normally when the variable is already set or the exec fails.
    public static func ensureSingleThreadedOpenMP() {
        guard getenv("OMP_THREAD_LIMIT") == nil else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // exec failed (no /proc): carry on, slower but correct.
    }
}
