import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HTTP/1.1 server on 127.0.0.1, for testing the catalogue clients over the same libcurl
/// code path they use in production. POSIX sockets only: one thread accepts, one thread per
/// connection answers, every response carries `Connection: close`.
///
/// Each request is answered by `route(method, target)` (target: path and query, as sent), which
/// says how to behave. The route can be swapped while the server runs (`setRoute`), e.g. to "fix"
/// a failing catalogue. Every request is recorded (method, target, User-Agent, arrival time).
///
/// `@unchecked Sendable` is safe here: the only stored properties that change after `init`
/// (`route`, `log`, `connections`, `running`, `activeThreads`, `stopped`) are read and written
/// exclusively while holding `lock`; `port` and `listener` are immutable. Socket I/O on a
/// connection is done only by the thread that owns it; `stop()` merely calls `shutdown()` on
/// still-registered sockets, under the lock, so it can never touch a descriptor that its owner
/// has already closed (and that the process may have reused).
final class TestHTTPServer: @unchecked Sendable {
    /// How the server answers one request.
    enum Behaviour: Sendable {
        /// A complete response with `Content-Length`.
        case respond(status: Int, headers: [String: String], body: [UInt8])
        /// Read the request and never answer: the connection stays open until the client gives
        /// up or the server stops (for timeout tests).
        case hang
        /// A 200 whose body is `bytes` long, streamed in chunks (for body-size limit tests).
        case huge(bytes: Int)
        /// A 200 `application/json` response cut off in the middle of an object.
        case malformedJSON

        /// A JSON body.
        static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> Behaviour {
            .respond(status: status, headers: ["Content-Type": "application/json; charset=utf-8"].merging(headers) { $1 },
                     body: Array(text.utf8))
        }

        /// A status with a short plain-text body.
        static func status(_ code: Int, headers: [String: String] = [:]) -> Behaviour {
            .respond(status: code, headers: ["Content-Type": "text/plain"].merging(headers) { $1 },
                     body: Array("status \(code)\n".utf8))
        }
    }

    /// One request as it arrived.
    struct Request: Sendable {
        let method: String
        /// Path and query, e.g. `/api/books?bibkeys=ISBN:9780143039952&jscmd=data&format=json`.
        let target: String
        let userAgent: String?
        let arrival: ContinuousClock.Instant

        var path: String { String(target.prefix { $0 != "?" }) }
        /// The decoded query items.
        var query: [String: String] {
            let items = URLComponents(string: "http://localhost" + target)?.queryItems ?? []
            return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        }
    }

    typealias Route = @Sendable (_ method: String, _ target: String) -> Behaviour

    /// The port this server listens on; after `stop()`, connections to it are refused.
    let port: UInt16
    /// `http://127.0.0.1:<port>`.
    var baseURL: String { "http://127.0.0.1:\(port)" }
    /// The host key the rate limiter uses for this server (`HTTPClient.host`).
    var host: String { "127.0.0.1:\(port)" }

    private let listener: Int32
    private let lock = NSLock()
    private var route: Route
    private var log: [Request] = []
    private var connections: Set<Int32> = []
    private var running = true
    private var stopped = false
    private var activeThreads = 0
    private let acceptFinished = DispatchSemaphore(value: 0)

    init(route: @escaping Route) throws {
        self.route = route
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw FixtureError("test server: socket() failed: errno \(errno)") }
        // A port named explicitly, below Linux's ephemeral range (32768-60999), and no
        // SO_REUSEADDR: when `stop()` shuts the listener down, the kernel keeps an explicitly bound
        // port bound to it (a port 0 bind is released at once), so the port answers "connection
        // refused" for the rest of the process and no later test server can take it. Without
        // this, a server started by a parallel test once got a stopped server's port and
        // answered the requests of a test that expected the catalogue to be down.
        var bound: Int32 = -1, chosen: UInt16 = 0
        for _ in 0..<200 {
            chosen = UInt16.random(in: 20_000..<32_768)
            bound = Self.loopback(fd, port: chosen, bind)
            if bound == 0 || errno != EADDRINUSE { break }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let error = errno
            close(fd)
            throw FixtureError("test server: bind/listen on 127.0.0.1 failed: errno \(error)")
        }
        listener = fd
        port = chosen
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// `call` (`bind` or `connect`) of `fd` with 127.0.0.1:`port`; its result (-1 with `errno` set on failure).
    static func loopback(_ fd: Int32, port: UInt16,
                         _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// A server answering every request with `behaviour`.
    convenience init(always behaviour: Behaviour) throws {
        try self.init { _, _ in behaviour }
    }

    // MARK: State, under the lock

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Replaces the route; later requests use the new one.
    func setRoute(_ route: @escaping Route) { locked { self.route = route } }

    /// Every request received so far, in arrival order.
    var requests: [Request] { locked { log } }

    /// The number of requests received so far.
    var requestCount: Int { locked { log.count } }

    /// Connection threads still running.
    var activeConnections: Int { locked { activeThreads } }

    private var isRunning: Bool { locked { running } }

    // MARK: Serving

    private func acceptLoop() {
        while isRunning {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            // A short poll timeout so that `stop()` is noticed even if shutdown() did not wake us.
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            let accepted: Bool = locked {
                guard running else { return false }
                connections.insert(fd)
                activeThreads += 1
                return true
            }
            guard accepted else { close(fd); break }
            Thread.detachNewThread { [self] in serve(fd) }
        }
        // The listener is shut down but never closed: it keeps the port (see `init`). One
        // descriptor per server, a few dozen per test run.
        acceptFinished.signal()
    }

    private func serve(_ fd: Int32) {
        defer {
            locked {
                connections.remove(fd)
                activeThreads -= 1
            }
            close(fd)
        }
        guard let head = readHead(fd) else { return }
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ").map(String.init) ?? []
        guard requestLine.count >= 2 else { return }
        let userAgent = lines.dropFirst().first { $0.lowercased().hasPrefix("user-agent:") }
            .map { String($0.dropFirst("user-agent:".count)).trimmingCharacters(in: .whitespaces) }
        let request = Request(method: requestLine[0], target: requestLine[1], userAgent: userAgent, arrival: .now)
        let route = locked {
            log.append(request)
            return self.route
        }
        switch route(request.method, request.target) {
        case .respond(let status, let headers, let body):
            guard sendAll(fd, Array(Self.head(status: status, headers: headers, length: body.count).utf8) + body) else { return }
            finishResponse(fd)
        case .hang:
            // Until the client gives up (recv returns 0) or stop() shuts the socket down.
            var buffer = [UInt8](repeating: 0, count: 1024)
            while recv(fd, &buffer, buffer.count, 0) > 0 {}
        case .huge(let total):
            guard sendAll(fd, Array(Self.head(status: 200, headers: ["Content-Type": "application/json"], length: total).utf8))
            else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 64 * 1024)
            var sent = 0
            while sent < total {
                let n = min(chunk.count, total - sent)
                // Fails as soon as the client stops reading and closes: that is the expected end.
                guard sendAll(fd, Array(chunk.prefix(n))) else { return }
                sent += n
            }
            finishResponse(fd)
        case .malformedJSON:
            let body = Array(#"{"ISBN:9780143039952": {"title": "The Odyssey", "authors": [{"name": "Hom"#.utf8)
            guard sendAll(fd, Array(Self.head(status: 200, headers: ["Content-Type": "application/json"], length: body.count).utf8) + body)
            else { return }
            finishResponse(fd)
        }
    }

    /// Reads up to the blank line that ends the request head (GET requests carry no body).
    private func readHead(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = [13, 10, 13, 10]
        while data.count < 64 * 1024 {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return nil }
            data.append(contentsOf: buffer[0..<n])
            if data.count >= 4, (0...(data.count - 4)).contains(where: { Array(data[$0..<$0 + 4]) == end }) {
                return String(decoding: data, as: UTF8.self)
            }
        }
        return nil
    }

    /// After a response: no more writes, then wait (briefly) for the client to close first, so
    /// that closing never resets a connection whose response the client has not read yet.
    private func finishResponse(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_WR))
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 1024)
        while poll(&pfd, 1, 2000) > 0, recv(fd, &buffer, buffer.count, 0) > 0 {}
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)  // a client that hung up must not kill the test process with SIGPIPE
            #else
            let flags: Int32 = 0
            #endif
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    private static func head(status: Int, headers: [String: String], length: Int) -> String {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(length)\r\nConnection: close\r\n\r\n"
        return text
    }

    private static func reason(_ status: Int) -> String {
        [200: "OK", 301: "Moved Permanently", 302: "Found", 403: "Forbidden", 404: "Not Found",
         429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"][status] ?? "Status"
    }

    // MARK: Stopping

    /// Shuts the listening socket down (its port stays reserved, refusing connections) and closes
    /// every open connection (hung ones included), then waits for the server's threads to end.
    /// Idempotent.
    func stop() {
        let first: Bool = locked {
            guard !stopped else { return false }
            stopped = true
            running = false
            // Under the lock: each fd here is still owned (its thread removes it before closing).
            for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        acceptFinished.wait()
        let deadline = ContinuousClock.now + .seconds(30)
        while activeConnections > 0 && ContinuousClock.now < deadline {
            // Connections accepted between the shutdown pass and now are shut down too.
            locked { for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) } }
            usleep(5_000)
        }
    }
}

/// A thread-safe counter for routes that answer differently over time.
/// `@unchecked Sendable`: `value` is only touched under `lock`.
final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    /// Counts one more and returns the new count (1 for the first call).
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

extension TestHTTPServer {
    /// A route that answers the n-th request with `behaviours[n-1]`, then `last` forever.
    static func sequence(_ behaviours: [Behaviour], then last: Behaviour) -> Route {
        let counter = RequestCounter()
        return { _, _ in
            let n = counter.next()
            return n <= behaviours.count ? behaviours[n - 1] : last
        }
    }
}
