"""Helpers shared by the web page tests (`test_serve.py`, `test_serve_browser.py`): the
shared data folder, a tokenizer whose vocabulary is made of markup and script (ADVERSARIAL.md
L2), a broken tokenizer file, and a plain HTTP client that can send any Host or Origin.

Not a pytest conftest (pytest loads only ``conftest.py``): the tests import it.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import pytest

import tokenmill
from tokenmill.viz.server import make_server

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
BERT = DATA / "hf" / "bert-base-uncased" / "tokenizer.json"

# Token strings that would run script or break out of an attribute if put into HTML unescaped.
EVIL_WORDS = [
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='alert(1)",
    "javascript:alert(1)",
    "<script>alert(1)</script>",
    "\u202eevil\u2066",
]
EVIL_SPECIAL = "</script><!--<|x|>"


def need_data() -> Path:
    """The BERT tokenizer.json of ../shared/data; a clear failure when the folder is missing."""
    if not BERT.is_file():
        raise AssertionError(f"missing {BERT}: these tests need the shared data folder ../shared/data "
                             "(see its README.md) next to the repository")
    return BERT


def write_evil_tokenizer(folder: Path) -> Path:
    """A WordLevel tokenizer (one word per line) whose words are `EVIL_WORDS`, with a special
    token `EVIL_SPECIAL`, saved as ``evil-vocab.json`` in `folder`."""
    vocab = {w: i for i, w in enumerate(EVIL_WORDS)}
    tok = tokenmill.WordLevel(vocab, special_tokens={EVIL_SPECIAL: len(vocab), "[UNK]": len(vocab) + 1},
                              pattern=r"(\n)", unk_token="[UNK]")
    path = folder / "evil-vocab.json"
    tok.save(str(path))
    return path


def write_broken_tokenizer(folder: Path) -> Path:
    """A file named like a tokenizer that no loader can read."""
    path = folder / "broken-tokenizer.json"
    path.write_text('{"model": {"type": "BPE", "vocab": 12', encoding="utf-8")
    return path


class Client:
    """HTTP to the server at `port`, with the Host (and any other header) under the test's control."""

    def __init__(self, port: int):
        self.port = port
        self.host = f"127.0.0.1:{port}"

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
                timeout: float = 30.0) -> tuple[int, dict[str, str], bytes]:
        h = {"Host": self.host}
        h.update(headers or {})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for k, v in h.items():
                conn.putheader(k, v)
            conn.endheaders(body)
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def info(self) -> dict[str, Any]:
        status, _, body = self.request("GET", "/api/tokenizers")
        assert status == 200, body
        return json.loads(body)

    def post(self, path: str, payload: Any, *, token: str | None = None, headers: dict[str, str] | None = None
             ) -> tuple[int, dict[str, str], Any]:
        token = self.info()["token"] if token is None else token
        h = {"Content-Type": "application/json", "X-Tokenmill-Token": token}
        h.update(headers or {})
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        h.setdefault("Content-Length", str(len(body)))
        status, hdrs, raw = self.request("POST", path, body, h)
        return status, hdrs, json.loads(raw) if raw else None

    def encode(self, text: str, tokenizers: list[str], parse_special: bool = False) -> dict[str, Any]:
        status, _, data = self.post("/api/encode", {"text": text, "tokenizers": tokenizers,
                                                    "parse_special": parse_special})
        assert status == 200, data
        return data


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The launch files of the test servers: BERT, a hostile vocabulary, a broken file."""
    folder = tmp_path_factory.mktemp("serve")
    return {"bert": need_data(), "evil": write_evil_tokenizer(folder), "broken": write_broken_tokenizer(folder)}


@pytest.fixture(scope="module")
def server(files):
    """A page server on a free port, offering `files`."""
    srv = make_server([files["bert"], files["evil"], files["broken"]], port=0).start()
    yield srv
    srv.stop()
