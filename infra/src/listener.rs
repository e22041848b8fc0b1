//! The dev server's listener, whose connections answer the HTTP layer's own refusals in the spec's
//! JSON shape (§7: every 4xx is JSON).
//!
//! hyper answers a request it cannot parse by itself, before any route runs: a malformed request
//! line or header (400), a URI over 64 KB (414), a head over its buffer or with more than 100
//! headers (431), each with an empty body. On AWS, API Gateway answers these through the template's
//! gateway responses; locally, each connection's writes pass through [`JsonRefusals`], which turns
//! such a body-less head into the same status with a `{status, message}` body. The application's
//! own 4xx answers always carry a `Content-Type`, so they are never touched. A connection beyond
//! the server's bound gets a JSON 503 ([`refuse_busy`]).

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

/// Answers a connection beyond the dev server's bound (`dev_server::max_connections`): a JSON
/// `503` with `Retry-After`, then closed (API Gateway's own throttling answers a flood on AWS).
pub async fn refuse_busy(mut stream: TcpStream) {
    let body = serde_json::json!({
        "status": 503,
        "message": billing_api::http::error::MSG_UNAVAILABLE,
        "code": billing_api::http::error::CODE_UNAVAILABLE,
    })
    .to_string();
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: {}\r\nretry-after: 2\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    // The request is not read: the answer goes out at once, and a client gone already is no loss.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}

/// A connection whose writes turn hyper's body-less 4xx heads into JSON answers.
pub struct JsonRefusals<T> {
    inner: T,
    /// A JSON answer replacing what hyper wrote, still being written.
    pending: Vec<u8>,
    sent: usize,
}

impl<T> JsonRefusals<T> {
    pub fn new(inner: T) -> Self {
        JsonRefusals { inner, pending: Vec::new(), sent: 0 }
    }
}

/// The JSON answer for what hyper was about to write, when it is one of its own refusals: a 4xx
/// head with an empty body and no content type.
pub fn json_refusal(written: &[u8]) -> Option<Vec<u8>> {
    let end = written.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&written[..end]).ok()?.to_ascii_lowercase();
    let status: u16 = head.strip_prefix("http/1.1 4")?.get(..2)?.parse().ok().map(|rest: u16| 400 + rest)?;
    let empty = head.lines().any(|line| line.replace(' ', "") == "content-length:0");
    if !empty || head.lines().any(|line| line.starts_with("content-type:")) || written.len() != end + 4 {
        return None;
    }
    let (reason, message) = match status {
        414 => ("URI Too Long", "URI da requisição longa demais"),
        431 => ("Request Header Fields Too Large", "Cabeçalhos da requisição grandes demais"),
        _ => ("Bad Request", "Requisição malformada"),
    };
    let body = serde_json::json!({"status": status, "message": message}).to_string();
    Some(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<T: AsyncWrite + Unpin> JsonRefusals<T> {
    /// Writes what is left of a replacement answer.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.pending.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonRefusals<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonRefusals<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if let Some(answer) = json_refusal(buf) {
            self.pending = answer;
            self.sent = 0;
            // What hyper wrote counts as written; the answer goes out on this call or the flush.
            let _ = self.poll_pending(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    // hyper then writes each message as one buffer, which `json_refusal` can read whole.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_refusals_become_json() {
        let written = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: Mon, 23 Nov 2026 05:00:00 GMT\r\n\r\n";
        let answer = String::from_utf8(json_refusal(written).unwrap()).unwrap();
        assert!(answer.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(answer.contains("content-type: application/json; charset=utf-8\r\n"));
        let body = answer.split("\r\n\r\n").nth(1).unwrap();
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body, serde_json::json!({"status": 431, "message": "Cabeçalhos da requisição grandes demais"}));
        assert!(json_refusal(b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n").is_some());
        assert!(json_refusal(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n").is_some());
    }

    #[test]
    fn the_applications_answers_pass_untouched() {
        let json =
            b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: 0\r\n\r\n";
        assert!(json_refusal(json).is_none());
        assert!(json_refusal(b"HTTP/1.1 204 No Content\r\n\r\n").is_none());
        assert!(json_refusal(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(json_refusal(b"HTTP/1.1 422 Unprocessable Entity\r\ncontent-length: 2\r\n\r\n{}").is_none());
        assert!(json_refusal(b"{\"status\": 400}").is_none());
    }
}
