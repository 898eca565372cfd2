//! Connections whose client stops reading are closed.
//!
//! A response the client does not read fills the socket's buffers; the server then waits
//! to write, and whatever the response holds stays held. A streamed list holds no database
//! connection while it waits (it reads in rounds, see `switchboard_db::list::stream`), but
//! the connection, its task and a chunk of JSON stay. Every accepted connection is
//! wrapped so that a write making no progress for the configured time fails, and hyper
//! closes the connection.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Sleep;

/// A listener whose connections give up a write that makes no progress for `limit`.
pub struct StallListener {
    inner: TcpListener,
    limit: Duration,
}

impl StallListener {
    /// Wraps `inner`, closing connections whose writes stall for `limit`.
    pub fn new(inner: TcpListener, limit: Duration) -> Self {
        StallListener { inner, limit }
    }
}

impl axum::serve::Listener for StallListener {
    type Io = StallGuard<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    return (
                        StallGuard {
                            inner: stream,
                            limit: self.limit,
                            deadline: None,
                        },
                        addr,
                    );
                }
                Err(error) => {
                    // Out of descriptors, say: the connections in flight go on, and the
                    // next accept is tried shortly (as axum's own listener does).
                    tracing::error!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A connection whose writes fail with `TimedOut` after making no progress for its limit.
pub struct StallGuard<S> {
    inner: S,
    limit: Duration,
    /// Set when a write first finds the socket full; cleared when one goes through.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<S> StallGuard<S> {
    /// `Pending` for `inner`'s answer, unless the stall has lasted the limit.
    fn stalled<T>(
        &mut self,
        cx: &mut Context<'_>,
        inner: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match inner {
            Poll::Ready(result) => {
                self.deadline = None;
                Poll::Ready(result)
            }
            Poll::Pending => {
                let limit = self.limit;
                let deadline = self
                    .deadline
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match deadline.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        tracing::info!(
                            seconds = limit.as_secs(),
                            "the client read nothing; closing its connection"
                        );
                        Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "the client stopped reading",
                        )))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for StallGuard<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for StallGuard<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let inner = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.stalled(cx, inner)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let inner = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.stalled(cx, inner)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let inner = Pin::new(&mut self.inner).poll_flush(cx);
        self.stalled(cx, inner)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let inner = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.stalled(cx, inner)
    }
}
