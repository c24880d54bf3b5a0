import Foundation

/// Spaces requests to each host: at most one start per `interval`, and none while a host has
/// asked us to wait (`Retry-After`). Shared by every client of a process.
public actor HostRateLimiter {
    private var intervals: [String: Duration] = [:]
    private var nextSlot: [String: ContinuousClock.Instant] = [:]

    public init() {}

    /// Sets the minimum spacing for `host` (e.g. 1/3 s for 3 requests a second).
    public func setInterval(_ interval: Duration, for host: String) {
        intervals[host] = interval
    }

    /// Waits until a request to `host` may start, and books that slot.
    public func acquire(_ host: String) async {
        let now = ContinuousClock.now
        let slot = max(now, nextSlot[host] ?? now)
        nextSlot[host] = slot + (intervals[host] ?? .seconds(1))
        if slot > now { try? await Task.sleep(until: slot, clock: .continuous) }
    }

    /// Sets `host`'s spacing to the longest of the current and `interval` (several services on one
    /// host, a mirror or a test server, get the strictest of their limits).
    public func tighten(_ interval: Duration, for host: String) {
        intervals[host] = max(intervals[host] ?? .zero, interval)
    }

    /// Holds every request to `host` back until `delay` from now.
    public func hold(_ host: String, for delay: Duration) {
        let until = ContinuousClock.now + delay
        if (nextSlot[host] ?? .now) < until { nextSlot[host] = until }
    }
}

/// GET with manners: a per-host rate limit, a User-Agent, and retries with exponential backoff
/// on 5xx and 429 that honour `Retry-After`. Transport failures are not retried.
public struct PoliteFetcher: Sendable {
    public let http: HTTPClient
    public let limiter: HostRateLimiter
    /// Attempts per request, the first included.
    public var maxAttempts = 3
    /// First backoff; doubled after each failure.
    public var backoff: Duration = .milliseconds(500)
    /// A `Retry-After` longer than this is not waited for: the request fails with `.rateLimited`.
    public var maxRetryAfter: Duration = .seconds(30)

    public init(http: HTTPClient, limiter: HostRateLimiter) {
        self.http = http
        self.limiter = limiter
    }

    /// Fetches `url`. Returns 2xx and 404 responses (a 404 is an answer: "no such book");
    /// throws `.rateLimited` when the host keeps answering 429, `.network` for other failures.
    public func get(_ url: String, service: String, accept: String = "application/json") async throws(ShelfScanError) -> HTTPResponse {
        let host = HTTPClient.host(url)
        var delay = backoff
        var lastProblem = ""
        for attempt in 1...maxAttempts {
            await limiter.acquire(host)
            // Transport failures (no route, refused, timed out) are not retried: waiting again
            // for a host that did not answer only stalls the scan, and nothing is cached, so the
            // next run asks again.
            let response = try await http.get(url, accept: accept)
            switch response.status {
            case 200..<300, 404:
                return response
            case 429, 500..<600:
                let wait = Self.retryAfter(response.headers["retry-after"]) ?? delay
                lastProblem = "\(service) answered \(response.status)"
                if wait > maxRetryAfter {
                    if response.status == 429 {
                        throw ShelfScanError(.rateLimited, "\(service) says to wait \(Self.seconds(wait)) s (HTTP 429: request quota used up); try later, or add an API key or contact address")
                    }
                    throw ShelfScanError(.network, "\(service) is unavailable (HTTP \(response.status)) and says to wait \(Self.seconds(wait)) s; try later")
                }
                if attempt == maxAttempts {
                    if response.status == 429 {
                        throw ShelfScanError(.rateLimited, "\(service) keeps answering 429 (request quota used up); try later, or add an API key or contact address")
                    }
                    throw ShelfScanError(.network, "\(service) answered \(response.status) \(attempt) times; try later")
                }
                await limiter.hold(host, for: wait)
                delay *= 2
            case 403:
                throw ShelfScanError(.network, "\(service) refused the request (HTTP 403); Open Library wants a contact address: pass --contact EMAIL or set SHELFSCAN_CONTACT")
            default:
                throw ShelfScanError(.badResponse, "\(service) answered HTTP \(response.status) for \(url)")
            }
        }
        throw ShelfScanError(.network, "\(service): \(lastProblem)")
    }

    /// `Retry-After` as seconds or an HTTP date.
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return .milliseconds(Int(max(0, seconds) * 1000)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(Int(max(0, date.timeIntervalSinceNow) * 1000))
    }

    private static func seconds(_ d: Duration) -> Int { Int(d.components.seconds) }
}
