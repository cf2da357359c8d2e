//! The HTTP/1.1 layer of `mindex serve`: one thread per connection, keep-alive, bounded heads
//! and bodies, and a graceful stop.
//!
//! Every accepted connection gets its own thread at once (up to a cap; past it the client is
//! answered `503` and the connection closed), so a new client is never queued behind the
//! long-lived keep-alive connections of others. A request head is at most [`MAX_HEAD_BYTES`]
//! and [`MAX_HEADERS`] headers, parsed by `httparse`; a body needs `Content-Length` (chunked
//! bodies are refused `411`), and one over the caller's limit is refused `413` unread, after
//! which the connection closes (what the client still sends is read and dropped for a few
//! seconds, so it sees the refusal rather than a reset). `Expect: 100-continue` is answered before the body is read. A
//! connection idle longer than [`IDLE`] is closed, and a head or body that stalls for
//! [`STALL`] too. When the stop flag is set, no new connection is taken, requests being
//! handled finish and are answered, and idle connections close.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The longest request head (request line and headers) read.
pub(crate) const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The most headers a request may carry.
pub(crate) const MAX_HEADERS: usize = 64;
/// How long a keep-alive connection may sit idle between requests.
pub(crate) const IDLE: Duration = Duration::from_secs(120);
/// How long a request's head or body may stall before the connection is dropped.
pub(crate) const STALL: Duration = Duration::from_secs(30);
/// How often a waiting connection looks at the stop flag.
const TICK: Duration = Duration::from_millis(200);

/// One request, its body read whole (within the limit).
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) url: String,
    headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    pub(crate) remote: Option<SocketAddr>,
}

impl Request {
    /// The first header named `name` (any case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// An answer: status, headers (`Content-Type` among them), body (sent with `Content-Length`).
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: String,
}

/// Accepts connections on `listener` until `stop` is set, each on a thread of its own (at most
/// `max_connections` at once), and answers every request with `handle`. Returns once every
/// connection has closed. `too_large` answers a body over `max_body` bytes.
pub(crate) fn serve(
    listener: &TcpListener,
    stop: &AtomicBool,
    max_connections: usize,
    max_body: usize,
    handle: &(dyn Fn(Request) -> Response + Sync),
    too_large: &(dyn Fn() -> Response + Sync),
) {
    // Non-blocking accept after a poll with a timeout, so the stop flag is seen within a tick.
    let _ = listener.set_nonblocking(true);
    let open = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        while !stop.load(Ordering::SeqCst) {
            let (stream, remote) = match listener.accept() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    wait_for_connection(listener, TICK);
                    continue;
                }
                Err(_) => {
                    // Out of descriptors and the like: back off, keep serving the others.
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
            };
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_nodelay(true);
            if open.load(Ordering::SeqCst) >= max_connections {
                let mut busy = plain(
                    503,
                    &format!(
                        "server busy: {max_connections} connections open (the limit); retry later\n"
                    ),
                );
                busy.headers.push(("Retry-After", "1".into()));
                let mut s = stream;
                // Whatever of the request has arrived is read first: closing with unread data
                // would reset the connection before the client reads the answer.
                let _ = s.set_nonblocking(true);
                let mut sink = [0u8; 16 * 1024];
                let mut drained = 0;
                while drained < MAX_HEAD_BYTES {
                    match s.read(&mut sink) {
                        Ok(n) if n > 0 => drained += n,
                        _ => break,
                    }
                }
                let _ = s.set_nonblocking(false);
                let _ = write_response(&mut s, &busy, false);
                let _ = s.shutdown(std::net::Shutdown::Write);
                continue;
            }
            open.fetch_add(1, Ordering::SeqCst);
            let open = &open;
            let spawned = std::thread::Builder::new()
                .name("mindex-http".into())
                .spawn_scoped(scope, move || {
                    connection(stream, Some(remote), stop, max_body, handle, too_large);
                    open.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                // No thread for it: the stream was moved into the failed closure and dropped.
                open.fetch_sub(1, Ordering::SeqCst);
            }
        }
    });
}

/// Waits until `listener` has a connection to accept, or `at_most` passed (so the caller sees
/// the stop flag): no busy loop while the server is idle.
fn wait_for_connection(listener: &TcpListener, at_most: Duration) {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let mut fds = libc::pollfd {
            fd: listener.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for a descriptor `listener` owns, and its count; poll only
        // writes `revents`. An error or a signal just ends the wait early.
        unsafe {
            libc::poll(&mut fds, 1, at_most.as_millis() as libc::c_int);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (listener, at_most);
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Why reading a request ended without one.
enum Ended {
    /// The peer closed, went idle too long, stalled, or the server is stopping.
    Closed,
    /// A malformed or refused request: answer it, then close.
    Refuse(Response),
}

fn connection(
    stream: TcpStream,
    remote: Option<SocketAddr>,
    stop: &AtomicBool,
    max_body: usize,
    handle: &(dyn Fn(Request) -> Response + Sync),
    too_large: &(dyn Fn() -> Response + Sync),
) {
    let _ = stream.set_read_timeout(Some(TICK));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        match read_request(&mut reader, &mut writer, remote, stop, max_body, too_large) {
            Ok((request, keep_alive)) => {
                let response = handle(request);
                let keep = keep_alive && !stop.load(Ordering::SeqCst);
                if write_response(&mut writer, &response, keep).is_err() || !keep {
                    return;
                }
            }
            Err(Ended::Closed) => return,
            Err(Ended::Refuse(response)) => {
                let _ = write_response(&mut writer, &response, false);
                linger(&mut reader, &writer);
                return;
            }
        }
    }
}

/// After a refusal: stops writing and reads (and drops) what the client is still sending,
/// for a few seconds and a few MiB at most, so the client reads the refusal instead of a reset
/// connection (closing with unread data makes the kernel reset it).
fn linger(reader: &mut BufReader<TcpStream>, writer: &TcpStream) {
    const MAX_BYTES: usize = 16 * 1024 * 1024;
    const MAX_TIME: Duration = Duration::from_secs(5);
    let _ = writer.shutdown(std::net::Shutdown::Write);
    let started = Instant::now();
    let mut drained = 0;
    let mut buf = [0u8; 64 * 1024];
    while drained < MAX_BYTES && started.elapsed() < MAX_TIME {
        match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => drained += n,
            Err(e) if no_data_yet(&e) => {}
            Err(_) => return,
        }
    }
}

/// A read that found nothing yet (its timeout passed, or a signal came): the connection is
/// still open.
fn no_data_yet(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock
            | std::io::ErrorKind::TimedOut
            | std::io::ErrorKind::Interrupted
    )
}

fn plain(status: u16, body: &str) -> Response {
    Response {
        status,
        headers: vec![("Content-Type", "text/plain; charset=utf-8".into())],
        body: body.to_string(),
    }
}

/// Reads one request: its head (waiting up to [`IDLE`] for the first byte, then at most
/// [`STALL`]) and its body. Answers whether the connection may stay open after it.
fn read_request(
    reader: &mut BufReader<TcpStream>,
    writer: &mut TcpStream,
    remote: Option<SocketAddr>,
    stop: &AtomicBool,
    max_body: usize,
    too_large: &(dyn Fn() -> Response + Sync),
) -> Result<(Request, bool), Ended> {
    let mut head: Vec<u8> = Vec::new();
    let started = Instant::now();
    let mut first_byte: Option<Instant> = None;
    // The head ends at the first empty line.
    while !head.ends_with(b"\r\n\r\n") && !head.ends_with(b"\n\n") {
        let available = match reader.fill_buf() {
            Ok([]) => return Err(Ended::Closed),
            Ok(buf) => buf,
            Err(e) if no_data_yet(&e) => {
                let waited = match first_byte {
                    None if stop.load(Ordering::SeqCst) => return Err(Ended::Closed),
                    None => started.elapsed() > IDLE,
                    Some(t) => t.elapsed() > STALL,
                };
                if waited {
                    return Err(Ended::Closed);
                }
                continue;
            }
            Err(_) => return Err(Ended::Closed),
        };
        first_byte.get_or_insert_with(Instant::now);
        // Take up to the end of the line, so the head never swallows the body.
        let take = available
            .iter()
            .position(|&b| b == b'\n')
            .map_or(available.len(), |i| i + 1);
        head.extend_from_slice(&available[..take]);
        reader.consume(take);
        if head.len() > MAX_HEAD_BYTES {
            return Err(Ended::Refuse(plain(
                431,
                "request head too large (64 KiB at most)\n",
            )));
        }
        if head == b"\r\n" || head == b"\n" {
            // Blank lines between requests are tolerated (RFC 9112 §2.2).
            head.clear();
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(&head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) | Err(_) => {
            return Err(Ended::Refuse(plain(
                400,
                "bad request: malformed HTTP head\n",
            )));
        }
    }
    let method = parsed.method.unwrap_or("").to_string();
    let url = parsed.path.unwrap_or("").to_string();
    let version = parsed.version.unwrap_or(1);
    let mut list: Vec<(String, String)> = Vec::with_capacity(parsed.headers.len());
    for h in parsed.headers.iter() {
        let Ok(value) = std::str::from_utf8(h.value) else {
            return Err(Ended::Refuse(plain(
                400,
                "bad request: a header is not UTF-8\n",
            )));
        };
        list.push((h.name.to_string(), value.trim().to_string()));
    }
    let request = Request {
        method,
        url,
        headers: list,
        body: Vec::new(),
        remote,
    };
    if request.header("Transfer-Encoding").is_some() {
        return Err(Ended::Refuse(plain(
            411,
            "length required: send the body with Content-Length (chunked bodies are not accepted)\n",
        )));
    }
    let lengths: Vec<&str> = request
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
        .map(|(_, v)| v.as_str())
        .collect();
    let length = match lengths.as_slice() {
        [] => 0,
        [one] => match one.parse::<usize>() {
            Ok(n) => n,
            Err(_) => {
                return Err(Ended::Refuse(plain(
                    400,
                    "bad request: invalid Content-Length\n",
                )));
            }
        },
        _ => {
            return Err(Ended::Refuse(plain(
                400,
                "bad request: more than one Content-Length\n",
            )));
        }
    };
    if length > max_body {
        return Err(Ended::Refuse(too_large()));
    }
    let connection = request
        .header("Connection")
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let keep_alive = if version == 0 {
        connection.contains("keep-alive")
    } else {
        !connection.contains("close")
    };
    if length > 0
        && request
            .header("Expect")
            .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
    {
        let _ = writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let mut request = request;
    request.body = read_body(reader, length)?;
    Ok((request, keep_alive))
}

/// Reads exactly `length` bytes, each read waiting at most [`STALL`] for progress.
fn read_body(reader: &mut BufReader<TcpStream>, length: usize) -> Result<Vec<u8>, Ended> {
    let mut body = vec![0u8; length];
    let mut at = 0;
    let mut progress = Instant::now();
    while at < length {
        match reader.read(&mut body[at..]) {
            Ok(0) => return Err(Ended::Closed),
            Ok(n) => {
                at += n;
                progress = Instant::now();
            }
            Err(e) if no_data_yet(&e) => {
                if progress.elapsed() > STALL {
                    return Err(Ended::Closed);
                }
            }
            Err(_) => return Err(Ended::Closed),
        }
    }
    Ok(body)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// Writes `response` with its length, saying whether the connection stays open.
fn write_response(
    out: &mut TcpStream,
    response: &Response,
    keep_alive: bool,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Length: {}\r\nConnection: {}\r\n",
        response.status,
        reason(response.status),
        response.body.len(),
        if keep_alive { "keep-alive" } else { "close" },
    );
    for (name, value) in &response.headers {
        // A value carrying a line break would split the head: never written.
        if !value.contains(['\r', '\n']) {
            head.push_str(name);
            head.push_str(": ");
            head.push_str(value);
            head.push_str("\r\n");
        }
    }
    head.push_str("\r\n");
    let mut all = head.into_bytes();
    all.extend_from_slice(response.body.as_bytes());
    out.write_all(&all)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A server answering each request with its method, path and body length, on a thread.
    fn start(max_connections: usize) -> (SocketAddr, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let t = std::thread::spawn(move || {
            let handle = |r: Request| Response {
                status: 200,
                headers: vec![("X-Seen", r.header("x-probe").unwrap_or("-").to_string())],
                body: format!("{} {} {}", r.method, r.url, r.body.len()),
            };
            serve(&listener, &s, max_connections, 1024, &handle, &|| {
                plain(413, "too large\n")
            });
        });
        (addr, stop, t)
    }

    /// Sends raw bytes, answers everything read until the server closes or 2 s pass.
    fn exchange(addr: SocketAddr, raw: &[u8]) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        s.write_all(raw).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn keep_alive_limits_and_refusals() {
        let (addr, stop, t) = start(64);
        // Two requests on one connection, the second asking to close.
        let out = exchange(
            addr,
            b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nX-Probe: a\r\n\r\nabcGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
        assert!(
            out.contains("POST /mcp 3") && out.contains("GET /healthz 0"),
            "{out}"
        );
        assert!(
            out.contains("X-Seen: a") && out.contains("Connection: close"),
            "{out}"
        );
        // Over the body limit: 413 unread; chunked: 411; two lengths: 400; garbage: 400.
        let big = exchange(addr, b"POST / HTTP/1.1\r\nContent-Length: 5000\r\n\r\n");
        assert!(big.starts_with("HTTP/1.1 413"), "{big}");
        let chunked = exchange(
            addr,
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        );
        assert!(chunked.starts_with("HTTP/1.1 411"), "{chunked}");
        let two = exchange(
            addr,
            b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        );
        assert!(two.starts_with("HTTP/1.1 400"), "{two}");
        assert!(exchange(addr, b"\x00\x01 nonsense\r\n\r\n").starts_with("HTTP/1.1 400"));
        // A head past 64 KiB: 431.
        let mut huge = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..2000 {
            huge.extend_from_slice(format!("X-Pad-{i}: {}\r\n", "y".repeat(40)).as_bytes());
        }
        huge.extend_from_slice(b"\r\n");
        assert!(exchange(addr, &huge).starts_with("HTTP/1.1 431"));
        // Expect: 100-continue is answered before the body.
        let cont = exchange(
            addr,
            b"POST /e HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\nhi",
        );
        assert!(
            cont.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"),
            "{cont}"
        );
        stop.store(true, Ordering::SeqCst);
        t.join().unwrap();
    }

    #[test]
    fn many_open_connections_never_hold_a_new_one_back_and_the_cap_answers_busy() {
        let (addr, stop, t) = start(40);
        // Idle keep-alive connections, each having made one request (so it was accepted).
        // A 503 is retried: the thread of a connection just closed may not have ended yet.
        let open_one = || {
            for _ in 0..100 {
                let mut s = TcpStream::connect(addr).unwrap();
                s.write_all(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                r.read_line(&mut line).unwrap();
                if line.starts_with("HTTP/1.1 200") {
                    return (s, r);
                }
                assert!(line.starts_with("HTTP/1.1 503"), "{line}");
                std::thread::sleep(Duration::from_millis(20));
            }
            panic!("no connection accepted under the cap");
        };
        let mut idle: Vec<_> = (0..30).map(|_| open_one()).collect();
        // A new client is answered at once, while all of them stay open.
        let out = exchange(addr, b"GET /new HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(out.contains("GET /new 0"), "{out}");
        // At the cap (exactly 40 open), the next one is answered 503 with Retry-After.
        idle.extend((0..10).map(|_| open_one()));
        let busy = exchange(addr, b"GET /late HTTP/1.1\r\n\r\n");
        assert!(busy.starts_with("HTTP/1.1 503"), "{busy}");
        assert!(busy.contains("Retry-After: 1"), "{busy}");
        // Stopping closes the idle connections and returns.
        stop.store(true, Ordering::SeqCst);
        t.join().unwrap();
    }
}
