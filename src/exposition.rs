//! `/metrics`, `/healthz` and `/readyz` over HTTP for whatever exposes
//! metrics ([`Exposition`]): the watcher's (`defrag --watch
//! --metrics-address`) and the examinations of `doctor --serve`.
//!
//! The server is hyper's HTTP/1.1, one request per connection
//! (`Connection: close`); the routes are one pure function, [`respond`].
//! Only `GET` (and `HEAD`) is served; `/metrics` speaks OpenMetrics to a
//! scraper that asks for it (Prometheus does) and the Prometheus text
//! format otherwise.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{HeaderValue, ACCEPT, ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The content type of an OpenMetrics exposition.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The content type of a Prometheus text (0.0.4) exposition.
pub const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What a server serves.
pub trait Exposition: Send + Sync + 'static {
    /// The exposition in OpenMetrics (with its `# EOF`) or Prometheus text.
    fn render(&self, openmetrics: bool) -> String;
    /// Whether `/readyz` is 200 (before the server is draining).
    fn ready(&self) -> bool;
    /// The body of a 503 `/readyz`: why not, ending in a newline.
    fn not_ready(&self) -> &'static str;
}

/// Listens on `address`; a failure is a usage error naming `flag`.
pub async fn bind(flag: &str, address: SocketAddr) -> crate::Result<TcpListener> {
    TcpListener::bind(address)
        .await
        .map_err(|e| crate::Error::usage(format!("{flag} {address}: cannot listen: {e}")))
}

/// The running server; it stops when this is dropped.
pub struct Server {
    _stop: tokio_util::sync::DropGuard,
}

/// Listens on `address` (a failure is a usage error naming `flag`) and
/// serves there in the background until the returned [`Server`] is dropped.
pub async fn start<E: Exposition>(
    flag: &str,
    address: SocketAddr,
    metrics: Arc<E>,
    draining: CancellationToken,
) -> crate::Result<Server> {
    let listener = bind(flag, address).await?;
    let local = listener.local_addr().unwrap_or(address);
    crate::logging::message(&format!(
        "serving /metrics, /healthz and /readyz on http://{local}"
    ));
    let stop = CancellationToken::new();
    tokio::spawn(serve(listener, metrics, draining, stop.clone()));
    Ok(Server {
        _stop: stop.drop_guard(),
    })
}

/// How long a client may take to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest request head read (hyper's smallest buffer).
const MAX_HEAD: usize = 8 * 1024;

/// Serves `/metrics`, `/healthz` and `/readyz` on `listener` until `stop`
/// is cancelled. `/readyz` is 503 again once `draining` is cancelled (the
/// watcher is shutting down).
pub async fn serve<E: Exposition>(
    listener: TcpListener,
    metrics: Arc<E>,
    draining: CancellationToken,
    stop: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                let metrics = metrics.clone();
                let draining = draining.clone();
                tokio::spawn(async move {
                    let ready = || metrics.ready() && !draining.is_cancelled();
                    if let Err(e) = answer(TokioIo::new(stream), metrics.as_ref(), ready).await {
                        tracing::debug!("metrics server: {e}");
                    }
                });
            }
            Err(e) => {
                // Out of file descriptors and the like: do not spin.
                tracing::warn!("metrics server: cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Answers the one request on `io` and closes the connection; `ready`
/// says, when the request has come, whether `/readyz` is 200. A client
/// that sends no request head within [`READ_TIMEOUT`] is hung up on.
async fn answer<I, E>(io: I, metrics: &E, ready: impl Fn() -> bool) -> hyper::Result<()>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    E: Exposition,
{
    let service = service_fn(|request: Request<hyper::body::Incoming>| {
        std::future::ready(Ok::<_, Infallible>(respond(metrics, ready(), &request)))
    });
    http1::Builder::new()
        .keep_alive(false)
        // A client may close its side once the request is sent.
        .half_close(true)
        .title_case_headers(true)
        .auto_date_header(false)
        .max_buf_size(MAX_HEAD)
        .timer(TokioTimer::new())
        .header_read_timeout(READ_TIMEOUT)
        .serve_connection(io, service)
        .await
}

/// The response to a request. Pure. Only the method, the target (an
/// origin-form path, else 400) and the `Accept` header matter. The
/// response carries its `Content-Length` (on `HEAD` too, without the
/// body) and `Connection: close`.
pub fn respond<B, E: Exposition>(
    metrics: &E,
    ready: bool,
    request: &Request<B>,
) -> Response<Full<Bytes>> {
    let plain = "text/plain; charset=utf-8";
    let uri = request.uri();
    let origin_form =
        uri.scheme().is_none() && uri.authority().is_none() && uri.path().starts_with('/');
    let method = request.method();
    let (status, content_type, body) = if !origin_form {
        (StatusCode::BAD_REQUEST, plain, "bad request\n".to_string())
    } else if method != Method::GET && method != Method::HEAD {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            plain,
            "method not allowed\n".to_string(),
        )
    } else {
        match uri.path() {
            "/metrics" => {
                let openmetrics = request.headers().get_all(ACCEPT).iter().any(|v| {
                    v.as_bytes()
                        .windows(b"application/openmetrics-text".len())
                        .any(|w| w == b"application/openmetrics-text")
                });
                let content_type = if openmetrics {
                    OPENMETRICS
                } else {
                    PROMETHEUS_TEXT
                };
                (StatusCode::OK, content_type, metrics.render(openmetrics))
            }
            "/healthz" => (StatusCode::OK, plain, "ok\n".to_string()),
            "/readyz" if ready => (StatusCode::OK, plain, "ok\n".to_string()),
            "/readyz" => (
                StatusCode::SERVICE_UNAVAILABLE,
                plain,
                metrics.not_ready().to_string(),
            ),
            _ => (StatusCode::NOT_FOUND, plain, "not found\n".to_string()),
        }
    };
    let length = body.len();
    let body = if method == Method::HEAD {
        Full::default()
    } else {
        Full::new(Bytes::from(body))
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
    headers.insert(CONNECTION, HeaderValue::from_static("close"));
    if status == StatusCode::METHOD_NOT_ALLOWED {
        headers.insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
    }
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// Ready, with one sample.
    struct Fixed;

    impl Exposition for Fixed {
        fn render(&self, openmetrics: bool) -> String {
            let eof = if openmetrics { "# EOF\n" } else { "" };
            format!("# TYPE up gauge\nup 1\n{eof}")
        }
        fn ready(&self) -> bool {
            true
        }
        fn not_ready(&self) -> &'static str {
            "not ready\n"
        }
    }

    struct NotReady;

    impl Exposition for NotReady {
        fn render(&self, _: bool) -> String {
            String::new()
        }
        fn ready(&self) -> bool {
            false
        }
        fn not_ready(&self) -> &'static str {
            "not ready\n"
        }
    }

    /// What the server writes back when a client sends `request` (and
    /// then closes its side), over an in-memory connection: the real
    /// hyper server, byte for byte.
    fn exchange(m: &Fixed, ready: bool, request: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (client, server) = tokio::io::duplex(1 << 20);
            let serving = answer(TokioIo::new(server), m, || ready);
            let asking = async move {
                let (mut from, mut to) = tokio::io::split(client);
                to.write_all(request.as_bytes()).await.unwrap();
                to.shutdown().await.unwrap();
                let mut text = String::new();
                from.read_to_string(&mut text).await.unwrap();
                text
            };
            let (_, text) = tokio::join!(serving, asking);
            text
        })
    }

    fn response(m: &Fixed, ready: bool, head: &str) -> (String, String) {
        let text = exchange(m, ready, head);
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        (head.to_string(), body.to_string())
    }

    #[test]
    fn routes_health_readiness_metrics_and_the_rest() {
        let m = Fixed;
        let (head, body) = response(&m, false, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        assert!(head.contains("Content-Length: 3\r\n"), "{head}");
        assert_eq!(body, "ok\n");

        let (head, _) = response(&m, false, "GET /readyz HTTP/1.1\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 503 "), "{head}");
        let (head, body) = response(&m, true, "GET /readyz?verbose HTTP/1.1\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
        assert_eq!(body, "ok\n");

        let (head, body) = response(
            &m,
            true,
            "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n\r\n",
        );
        assert!(
            head.contains(&format!("Content-Type: {OPENMETRICS}\r\n")),
            "{head}"
        );
        assert!(body.ends_with("# EOF\n"), "{body}");
        let (head, body) = response(&m, true, "GET /metrics HTTP/1.0\r\n\r\n");
        assert!(
            head.contains(&format!("Content-Type: {PROMETHEUS_TEXT}\r\n")),
            "{head}"
        );
        assert!(body.contains("up 1"), "{body}");

        let (head, body) = response(&m, true, "HEAD /healthz HTTP/1.1\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
        assert_eq!(body, "");
        let (head, _) = response(&m, true, "GET /other HTTP/1.1\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 404 "), "{head}");
        let (head, _) = response(&m, true, "POST /metrics HTTP/1.1\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 405 "), "{head}");
        assert!(head.contains("Allow: GET, HEAD"), "{head}");
        for nonsense in ["GET\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n"] {
            let (head, _) = response(&m, true, nonsense);
            assert!(head.starts_with("HTTP/1.1 400 "), "{nonsense:?}: {head}");
        }
        // No request line at all: hyper hangs up without an answer (the
        // hand-written server before it answered 400).
        for nothing in ["", "\r\n\r\n"] {
            assert_eq!(exchange(&m, true, nothing), "", "{nothing:?}");
        }
    }

    /// The bytes on the wire, whole: the same head fields, in the same
    /// order and case, as the hand-written server wrote.
    #[test]
    fn answers_byte_for_byte() {
        let m = Fixed;
        let plain = "Content-Type: text/plain; charset=utf-8\r\n";
        let cases = [
            (
                "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                format!("HTTP/1.1 200 OK\r\n{plain}Content-Length: 3\r\nConnection: close\r\n\r\nok\n"),
            ),
            (
                "HEAD /nope HTTP/1.1\r\n\r\n",
                format!("HTTP/1.1 404 Not Found\r\n{plain}Content-Length: 10\r\nConnection: close\r\n\r\n"),
            ),
            (
                "DELETE /metrics HTTP/1.1\r\n\r\n",
                format!("HTTP/1.1 405 Method Not Allowed\r\n{plain}Content-Length: 19\r\nConnection: close\r\nAllow: GET, HEAD\r\n\r\nmethod not allowed\n"),
            ),
            (
                "GET http://x/healthz HTTP/1.1\r\n\r\n",
                format!("HTTP/1.1 400 Bad Request\r\n{plain}Content-Length: 12\r\nConnection: close\r\n\r\nbad request\n"),
            ),
        ];
        for (request, want) in cases {
            assert_eq!(exchange(&m, true, request), want, "{request:?}");
        }
    }

    /// Over TCP as a scraper sees it: one answer per connection, which the
    /// server then closes; once stopped, nothing listens.
    #[tokio::test]
    async fn serves_over_tcp_until_stopped() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = bind("--x", "127.0.0.1:0".parse().unwrap()).await.unwrap();
        let address = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let serving = tokio::spawn(serve(
            listener,
            Arc::new(NotReady),
            CancellationToken::new(),
            stop.clone(),
        ));
        for path in ["/healthz", "/readyz"] {
            let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
            stream
                .write_all(format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut text = String::new();
            tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut text))
                .await
                .expect("the server closes the connection after its answer")
                .unwrap();
            let want = if path == "/healthz" {
                "HTTP/1.1 200 "
            } else {
                "HTTP/1.1 503 "
            };
            assert!(text.starts_with(want), "{path}: {text}");
        }
        stop.cancel();
        serving.await.unwrap();
        assert!(tokio::net::TcpStream::connect(address).await.is_err());
    }
}
