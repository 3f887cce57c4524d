"""The local web page of ``tokenmill serve``: type text, see its tokens under several
tokenizers side by side, and compare how well they compress it.

`make_server` builds the server (tests start it in a thread), `serve` runs it until Ctrl-C.
Standard library only: `http.server.ThreadingHTTPServer` with a bounded number of worker
threads, a socket timeout per connection (slow clients are dropped) and a request body limit
(1 MiB by default; larger bodies get HTTP 413 ``{"error": "input_too_large", "limit_bytes"}``).

Routes: ``GET /`` (the page; ``?encodings=a,b`` preselects tokenizers), ``GET /app.js``,
``/style.css``, ``/favicon.svg`` (every asset comes from this package, no CDN),
``GET /api/tokenizers`` (the offered tokenizers, the defaults, the limits and the per-launch
token), ``POST /api/encode`` and ``POST /api/samples`` (`tokenmill.viz.server_api`).

Security (ADVERSARIAL.md section L): the server binds 127.0.0.1 only; every request must
carry ``Host: 127.0.0.1:PORT`` (or ``localhost:PORT``, ``[::1]:PORT``), which defeats DNS
rebinding; a request whose ``Origin`` is another origin is refused, and so is an API request
a browser marks ``Sec-Fetch-Site: cross-site``/``same-site``. A POST needs the per-launch
token in the ``X-Tokenmill-Token`` header and a JSON content type: a cross-site form cannot
set either, and another site cannot read the token (``GET /api/tokenizers`` has no CORS
headers and checks Host). Every response carries a strict Content-Security-Policy (no inline
script or style), ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``;
the page builds its DOM with ``textContent`` only and the server never puts request data
into HTML. Requests name tokenizers by the labels offered at launch, never by path.

What it does not do: listen on other interfaces, serve files from disk other than its own
assets, or keep anything between launches.
"""

from __future__ import annotations

import errno
import hmac
import json
import os
import secrets
import sys
import threading
import time
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Iterable
from urllib.parse import urlsplit

from .._version import __version__
from ..errors import InputError
from ..tokenizer import Tokenizer
from .defaults import DEFAULT_PORT, MAX_BODY
from .server_api import MAX_TOKENS, BadRequest, Catalog, Sample, encode_response, sample_texts, samples_response

__all__ = ["make_server", "serve", "PageServer", "MAX_BODY", "DEFAULT_PORT"]

# Worker threads at most, and how long one connection may sit idle or send slowly (seconds).
_WORKERS = 32
_TIMEOUT = 15.0
# After a 413, at most this much of the refused body is read and dropped, for at most this long.
_DRAIN_BYTES = 16 << 20
_DRAIN_SECONDS = 2.0

_ASSETS = {"/": ("index.html", "text/html; charset=utf-8"), "/index.html": ("index.html", "text/html; charset=utf-8"),
           "/app.js": ("app.js", "text/javascript; charset=utf-8"), "/style.css": ("style.css", "text/css; charset=utf-8"),
           "/favicon.svg": ("favicon.svg", "image/svg+xml")}

_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _assets() -> dict[str, bytes]:
    folder = resources.files("tokenmill.viz").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name, _ in set(_ASSETS.values())}


class _Handler(BaseHTTPRequestHandler):
    server: PageServer
    protocol_version = "HTTP/1.1"  # keep-alive: typing sends many small requests
    server_version = f"tokenmill/{__version__}"
    timeout = _TIMEOUT

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.server.verbose:
            super().log_message(format, *args)

    def end_headers(self) -> None:
        # Here, so that the base class's own error pages get the headers too.
        for name, value in _HEADERS.items():
            self.send_header(name, value)
        super().end_headers()

    def _send(self, status: int, body: bytes, content_type: str, *, close: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any, *, close: bool = False) -> None:
        # Plain ASCII with <, > and & escaped too (they occur only inside strings): no byte of
        # the answer reads as markup even if something ever treated it as HTML.
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
        body = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode("ascii")
        self._send(status, body, "application/json", close=close)

    def _refuse(self, status: int, error: str, message: str, **extra: Any) -> None:
        self._json(status, {"error": error, "message": message, **extra}, close=True)

    def _drain(self, n: int) -> None:
        deadline = time.monotonic() + _DRAIN_SECONDS
        try:
            while n > 0 and time.monotonic() < deadline:
                chunk = self.rfile.read1(min(n, 1 << 16))
                if not chunk:
                    break
                n -= len(chunk)
        except OSError:
            pass

    def _refusal(self, api: bool) -> tuple[int, str, str] | None:
        """Host, Origin and Sec-Fetch-Site checks: ``(403, error, message)`` when one fails."""
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self.server.hosts:
            return 403, "forbidden", f"Host {host or '(empty)'!r} is not this server; open {self.server.url}"
        origin = self.headers.get("Origin")
        if origin is not None and origin.strip().lower() not in self.server.origins:
            return 403, "forbidden", "requests from other origins are refused"
        if api and (self.headers.get("Sec-Fetch-Site") or "same-origin").lower() not in ("same-origin", "none"):
            return 403, "forbidden", "requests from other sites are refused"
        return None

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        path = urlsplit(self.path).path
        refusal = self._refusal(api=path.startswith("/api/"))
        if refusal is not None:
            self._refuse(*refusal)
        elif path in _ASSETS:
            name, content_type = _ASSETS[path]
            self._send(200, self.server.assets[name], content_type)
        elif path == "/api/tokenizers":
            self._json(200, self.server.describe())
        else:
            self._json(404, {"error": "not_found", "message": f"no such page: {path}"})

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        error = self._check_post()
        if error is not None:
            # Answered before reading the body; then some of it is read and dropped, so that a
            # client still sending sees the answer rather than a reset connection.
            status, code, message, extra = error
            self._refuse(status, code, message, **extra)
            try:
                declared = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                declared = 0
            self._drain(min(max(declared, 0), _DRAIN_BYTES))
            return
        body = self.rfile.read(int(self.headers["Content-Length"]))
        try:
            payload = json.loads(body.decode("utf-8"))
        except UnicodeDecodeError as e:
            self._refuse(400, "bad_request", f"the request body is not UTF-8 (byte {e.start}); send UTF-8 JSON")
            return
        except ValueError as e:
            self._refuse(400, "bad_request", f"the request body is not JSON: {e}")
            return
        try:
            self._json(200, self._routes()[urlsplit(self.path).path](payload))
        except BadRequest as e:
            self._refuse(400, "bad_request", str(e))
        except Exception as e:  # noqa: BLE001 - a bug answers 500; the server keeps serving
            self._refuse(500, "internal_error", f"{type(e).__name__}: {' '.join(str(e).split())}")

    def _routes(self) -> dict[str, Any]:
        return {"/api/encode": self.server.encode, "/api/samples": self.server.samples}

    def _check_post(self) -> tuple[int, str, str, dict[str, Any]] | None:
        """Why a POST is refused, as ``(status, error, message, extra)``, or None."""
        refusal = self._refusal(api=True)
        if refusal is not None:
            return (*refusal, {})
        path = urlsplit(self.path).path
        if path not in self._routes():
            return 404, "not_found", f"no such endpoint: {path}", {}
        token = self.headers.get("X-Tokenmill-Token") or ""
        if not hmac.compare_digest(token.encode("utf-8", "replace"), self.server.token.encode("ascii")):
            return 403, "bad_token", "missing or wrong X-Tokenmill-Token (reload the page)", {}
        if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
            return 415, "unsupported_media_type", "send the request as application/json", {}
        if self.headers.get("Transfer-Encoding"):
            return 411, "length_required", "send a Content-Length, not a chunked body", {}
        length = self.headers.get("Content-Length") or ""
        if not length.isdigit():
            return 411, "length_required", "send a Content-Length with the body", {}
        if int(length) > self.server.max_body:
            return (413, "input_too_large", f"the request is {int(length):,} bytes; the limit is "
                    f"{self.server.max_body:,} bytes", {"limit_bytes": self.server.max_body})
        return None


class PageServer(ThreadingHTTPServer):
    """The page's HTTP server, bound to 127.0.0.1 (see `make_server`).

    ``url`` is the page's address, ``serve_forever()`` serves until ``shutdown()`` (from
    another thread); ``start()`` serves in a background thread and ``stop()`` stops and
    closes it.
    """

    daemon_threads = True
    block_on_close = False
    # Connections wait in the kernel's queue while every worker is busy (the default, 5,
    # resets a burst of page requests).
    request_queue_size = 128

    def __init__(self, catalog: Catalog, *, port: int = 0, max_body: int = MAX_BODY, max_tokens: int = MAX_TOKENS,
                 verbose: bool = False):
        self.catalog, self.max_body, self.max_tokens, self.verbose = catalog, max_body, max_tokens, verbose
        self.assets = _assets()
        self.token = secrets.token_urlsafe(24)
        self._slots = threading.BoundedSemaphore(_WORKERS)
        self._thread: threading.Thread | None = None
        self._samples: list[Sample] | None = None
        try:
            super().__init__(("127.0.0.1", port), _Handler)
        except OSError as e:
            raise InputError(_bind_error(port, e)) from None
        self.port = self.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}", f"[::1]:{self.port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    # Bounded pool: the accept loop waits for a free worker; a client that cannot get one in
    # time is dropped rather than queued without limit.
    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(timeout=_TIMEOUT):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A dropped connection or timeout is routine; print tracebacks only when verbose.
        if self.verbose:
            super().handle_error(request, client_address)

    def describe(self) -> dict[str, Any]:
        """The answer to ``GET /api/tokenizers``."""
        return {"tokenizers": self.catalog.info(), "default": self.catalog.default, "token": self.token,
                "limit_bytes": self.max_body, "max_tokens": self.max_tokens, "samples": bool(self._sample_texts()),
                "version": __version__}

    def encode(self, payload: Any) -> dict[str, Any]:
        """``POST /api/encode`` (`encode_response`)."""
        return encode_response(self.catalog, payload, max_tokens=self.max_tokens)

    def samples(self, payload: Any) -> dict[str, Any]:
        """``POST /api/samples`` (`samples_response`)."""
        return samples_response(self.catalog, payload, self._sample_texts())

    def _sample_texts(self) -> list[Sample]:
        if self._samples is None:
            self._samples = sample_texts()
        return self._samples

    def start(self) -> PageServer:
        """Serves in a background (daemon) thread; returns the server."""
        self._thread = threading.Thread(target=self.serve_forever, name="tokenmill-serve", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops serving (when `start` started it) and closes the socket."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
            self._thread = None
        self.server_close()

    def __enter__(self) -> PageServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _bind_error(port: int, e: OSError) -> str:
    if e.errno == errno.EADDRINUSE or getattr(e, "winerror", None) == 10048:
        return f"port {port} on 127.0.0.1 is in use; choose another port (--port N), or 0 for a free one"
    if e.errno == errno.EACCES or getattr(e, "winerror", None) == 10013:
        return f"port {port} on 127.0.0.1 needs privileges; choose a port above 1023, or 0 for a free one"
    return f"cannot listen on 127.0.0.1:{port}: {e.strerror or e}"


def make_server(tokenizers: Iterable[str | os.PathLike | Tokenizer] = (), *, port: int = 0,
                default: Iterable[str] | None = None, max_body: int = MAX_BODY, max_tokens: int = MAX_TOKENS,
                verbose: bool = False) -> PageServer:
    """A server for the page, bound to 127.0.0.1 but not yet serving.

    Args:
        tokenizers: tokenizers offered beside the standard encodings: file paths, encoding
            names or tokenizer objects (`Catalog`); files load on first use.
        port: the port (0: a free one).
        default: labels preselected when the URL has no ``?encodings=``.
        max_body: largest request body in bytes (HTTP 413 above it).
        max_tokens: tokens sent for display per tokenizer (counts stay exact).
        verbose: log every request on stderr.

    Returns:
        A `PageServer`: ``url``, ``serve_forever()``/``shutdown()``, ``start()``/``stop()``.

    Raises:
        InputError: a tokenizer file does not exist, or the port is in use.

    >>> srv = make_server().start()
    >>> srv.url.startswith("http://127.0.0.1:")
    True
    >>> srv.stop()
    """
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise InputError(f"port must be a number from 0 to 65535, not {port!r}")
    return PageServer(Catalog(tokenizers, default=default), port=port, max_body=max_body, max_tokens=max_tokens,
                      verbose=verbose)


def _can_open_browser() -> bool:
    # Without a display, webbrowser on Linux falls back to text browsers (lynx, w3m) that
    # would take over the terminal the server prints to.
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    return True


def _open_browser(url: str) -> None:
    def run() -> None:
        try:
            webbrowser.open(url, new=2)
        except Exception:  # noqa: BLE001 - no browser is not an error: the URL is printed
            pass

    threading.Thread(target=run, name="tokenmill-browser", daemon=True).start()


def serve(tokenizers: Iterable[str | os.PathLike | Tokenizer] = (), *, port: int = DEFAULT_PORT,
          open_browser: bool = True, default: Iterable[str] | None = None, max_body: int = MAX_BODY,
          verbose: bool = False, quiet: bool = False) -> None:
    """Serves the page on ``http://127.0.0.1:PORT/`` until Ctrl-C, printing the URL first and
    opening it in a browser when `open_browser` (never failing when there is none).

    Args:
        tokenizers: tokenizers offered beside the standard encodings (`make_server`).
        port: the port (0: a free one).
        open_browser: open the page in the default browser.
        default: labels preselected when the URL has no ``?encodings=``.
        max_body: largest request body in bytes.
        verbose: log every request on stderr.
        quiet: print only the URL (no notes on stderr).

    Returns:
        None, after Ctrl-C (the socket is closed).

    Raises:
        InputError: a tokenizer file does not exist, or the port is in use.

    >>> serve.__name__  # runs until Ctrl-C, so not run here
    'serve'
    """
    srv = make_server(tokenizers, port=port, default=default, max_body=max_body, verbose=verbose)
    print(srv.url, flush=True)
    if not quiet:
        print("tokenmill: serving the token viewer; press Ctrl-C to stop", file=sys.stderr, flush=True)
    if open_browser and _can_open_browser():
        _open_browser(srv.url)
    elif open_browser and not quiet:
        print("tokenmill: no display found; open the address above in a browser", file=sys.stderr, flush=True)
    try:
        srv.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        if not quiet:
            print("\ntokenmill: stopped", file=sys.stderr, flush=True)
    finally:
        srv.server_close()

