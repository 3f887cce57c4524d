"""The web page server (`tokenmill serve`, `tokenmill.viz.server`) without a browser: counts
agree with ``tok.count``, token text from any vocabulary comes back as JSON data, and the
security rules of ADVERSARIAL.md section L hold (headers, Host/Origin/token checks, the body
limit, no file access driven by requests, a bad tokenizer file does not stop the server).
The browser half is `test_serve_browser.py`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from importlib import resources

import pytest

import tokenmill
from conftest_browser import EVIL_SPECIAL, EVIL_WORDS, Client, files, server  # noqa: F401 (fixtures)
from tokenmill.analysis.samples import samples
from tokenmill.cli import main
from tokenmill.errors import InputError
from tokenmill.viz.server import make_server
from tokenmill.viz.server_api import Catalog, display, encode_response
from tokenmill.viz.tokens import encode_options

STATIC = resources.files("tokenmill.viz").joinpath("static")
TEXTS = [
    "",
    "hello world",
    "Tokenizers turn text into integers.\n\tdef f(x):\n        return x  # code\n",
    "Emoji 👍🏽 and flags 🇫🇷, naïve café; 中文分词，日本語のテキスト、한국어",
    "a typed <|endoftext|> and [CLS] stay text unless parsed",
    "   \n\n\n   x" * 50,
]


@pytest.fixture(scope="module")
def client(server):
    return Client(server.port)


def _names(client):
    return [t["name"] for t in client.info()["tokenizers"]]


# ---- what the page shows ------------------------------------------------------------------


def test_offers_standard_encodings_and_launch_files(client):
    info = client.info()
    names = [t["name"] for t in info["tokenizers"]]
    assert names[: len(tokenmill.list_encoding_names())] == tokenmill.list_encoding_names()
    assert "bert-base-uncased/tokenizer.json" in names and "evil-vocab.json" in names
    assert info["default"][:2] == ["bert-base-uncased/tokenizer.json", "evil-vocab.json"]
    assert info["limit_bytes"] == 1 << 20 and len(info["token"]) >= 24


@pytest.mark.parametrize("parse_special", [False, True])
def test_counts_equal_tokenizer_count(client, files, parse_special):
    bert = tokenmill.load(str(files["bert"])).with_padding(None).with_truncation(None)
    toks = {n: tokenmill.get_encoding(n) for n in ("gpt2", "cl100k_base", "o200k_base", "o200k_harmony")}
    toks["bert-base-uncased/tokenizer.json"] = bert
    for text in TEXTS:
        data = client.encode(text, list(toks), parse_special)
        assert data["chars"] == len(text) and data["bytes"] == len(text.encode())
        by_name = {r["name"]: r for r in data["results"]}
        for name, tok in toks.items():
            r = by_name[name]
            ids = tok.encode(text, **encode_options(parse_special))
            assert r["count"] == tok.count(text, **encode_options(parse_special)) == len(ids), (name, text)
            assert r["ids"] == ids and not r["truncated"]
            for i in set(ids):
                p = r["pieces"][str(i)]
                assert bytes.fromhex(p["hex"]) == tok.token_bytes(i)
            if ids:
                assert r["bytes_per_token"] == pytest.approx(len(text.encode()) / len(ids))
                assert r["chars_per_token"] == pytest.approx(len(text) / len(ids))


def test_special_token_text_is_ordinary_unless_asked(client):
    off = client.encode("<|endoftext|>", ["gpt2"])["results"][0]
    on = client.encode("<|endoftext|>", ["gpt2"], parse_special=True)["results"][0]
    assert off["count"] > 1 and not any(p["special"] for p in off["pieces"].values())
    assert on["ids"] == [50256] and on["pieces"]["50256"]["special"]


def test_hf_padding_and_truncation_are_off_and_said(client):
    r = client.encode("hi " * 300, ["bert-base-uncased/tokenizer.json"])["results"][0]
    assert r["count"] == 302  # [CLS] + 300 + [SEP]: neither padded nor cut at the file's 128
    assert "padding" in r["note"] and "truncation" in r["note"]


def test_token_list_is_capped_but_count_exact(files):
    with make_server(port=0, max_tokens=7).start() as srv:
        r = Client(srv.port).encode(" word" * 100, ["gpt2"])["results"][0]
    assert r["count"] == 100 and r["truncated"] and len(r["ids"]) == 7


def test_display_marks_whitespace_bytes_and_controls():
    assert display(b" a\tb\r\n") == ["", "·", "a", "→", "b", "␍", "", "↵", ""]
    assert display("\U0001F44D".encode()[:2]) == ["", "<0xF0>", "", "<0x9F>", ""]
    # Bidi overrides, NUL, escape, zero-width and byte-order marks are shown as escapes.
    for ch, shown in [("\u202e", "\\u202e"), ("\x00", "\\x00"), ("\x1b", "\\x1b"), ("\u200b", "\\u200b"),
                      ("\ufeff", "\\ufeff"), ("\u2066", "\\u2066"), ("\u00a0", "\\u00a0")]:
        assert display(f"a{ch}b".encode()) == ["a", shown, "b"], ch
    assert display(b"a\\b") == ["a\\b"]


# ---- hostile vocabularies and texts ---------------------------------------------------------


def test_malicious_tokens_come_back_as_json_data(client):
    text = "\n".join(EVIL_WORDS) + "\n" + EVIL_SPECIAL
    body = json.dumps({"text": text, "tokenizers": ["evil-vocab.json"], "parse_special": True}).encode()
    status, headers, raw = client.request("POST", "/api/encode", body, {
        "Content-Type": "application/json", "X-Tokenmill-Token": client.info()["token"], "Content-Length": str(len(body))})
    assert status == 200 and headers["content-type"] == "application/json"
    # No markup character appears in the answer's bytes; parsed, the strings are exact.
    assert b"<" not in raw and b">" not in raw and b"&" not in raw and b"\xe2\x80\xae" not in raw
    r = json.loads(raw)["results"][0]
    shown = [r["pieces"][str(i)]["shown"] for i in r["ids"]]
    assert shown[:4] == EVIL_WORDS[:4] and shown[-1] == EVIL_SPECIAL
    assert shown[4] == "\\u202eevil\\u2066"  # bidi controls escaped, not applied
    assert r["pieces"][str(r["ids"][-1])]["special"]


def test_hostile_text_is_counted_not_interpreted(client):
    text = "<script>alert(1)</script> <img src=x onerror=alert(1)> </textarea> {{7*7}} ${7*7}"
    r = client.encode(text, ["o200k_base"])["results"][0]
    enc = tokenmill.get_encoding("o200k_base")
    assert r["count"] == enc.count(text, **encode_options(False))
    assert b"".join(bytes.fromhex(r["pieces"][str(i)]["hex"]) for i in r["ids"]).decode() == text


def test_bad_tokenizer_file_is_a_message_and_the_server_lives(client):
    for _ in range(2):  # the failure is remembered, and answered the same way
        data = client.encode("hello", ["broken-tokenizer.json", "gpt2"])
        bad, good = data["results"]
        assert "broken-tokenizer.json" in bad["error"] and "count" not in bad
        assert good["count"] == 1
    assert client.encode("hello", ["gpt2"])["results"][0]["count"] == 1


def test_requests_cannot_name_files(client, tmp_path):
    secret = tmp_path / "secret.tiktoken"
    secret.write_bytes(b"aGk= 0\n")
    for name in (str(secret), "/etc/passwd", "http://169.254.169.254/", "../gpt2"):
        r = client.encode("hi", [name])["results"][0]
        assert "not offered" in r["error"] and "count" not in r
    status, _, _ = client.request("GET", "/?vocab=/etc/passwd")
    assert status == 200
    for path in ("/etc/passwd", "/../../etc/passwd", "/static/app.js", "/api/../app.js", "/%2e%2e/etc/passwd"):
        status, _, body = client.request("GET", path)
        assert status in (400, 404) and b"root:" not in body, path


# ---- HTTP security ---------------------------------------------------------------------------


def test_security_headers_on_every_response(client):
    for method, path in [("GET", "/"), ("GET", "/app.js"), ("GET", "/style.css"), ("GET", "/api/tokenizers"),
                         ("GET", "/nope"), ("POST", "/api/encode")]:
        status, h, _ = client.request(method, path, b"{}" if method == "POST" else None,
                                      {"Content-Length": "2"} if method == "POST" else None)
        csp = h["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp and "style-src 'self'" in csp, path
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer", path
    assert client.request("GET", "/")[1]["content-type"].startswith("text/html")
    assert client.request("GET", "/app.js")[1]["content-type"].startswith("text/javascript")
    assert client.request("GET", "/api/tokenizers")[1]["content-type"] == "application/json"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "", "127.0.0.1", "localhost",
                                  "127.0.0.1:1", "127.0.0.1.evil.example:{port}", "0.0.0.0:{port}"])
def test_foreign_host_is_refused(client, host):
    for method, path in [("GET", "/"), ("GET", "/api/tokenizers"), ("POST", "/api/encode")]:
        status, _, body = client.request(method, path, b"{}" if method == "POST" else None,
                                         {"Host": host.format(port=client.port), "Content-Length": "2",
                                          "Content-Type": "application/json"})
        assert status == 403 and b"token" not in body.lower().replace(b"x-tokenmill-token", b""), (host, path)


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_local_hosts_are_accepted(client, host):
    status, _, _ = client.request("GET", "/api/tokenizers", headers={"Host": host.format(port=client.port)})
    assert status == 200


def test_missing_host_is_refused(client):
    with socket.create_connection(("127.0.0.1", client.port), timeout=10) as s:
        s.sendall(b"GET /api/tokenizers HTTP/1.0\r\n\r\n")
        answer = s.recv(4096)
    assert answer.startswith(b"HTTP/1.1 403") or answer.startswith(b"HTTP/1.0 403")


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}",
                                    "http://localhost.evil.example"])
def test_cross_origin_post_is_refused(client, origin):
    status, _, data = client.post("/api/encode", {"text": "hi", "tokenizers": ["gpt2"]},
                                  headers={"Origin": origin.format(port=client.port)})
    assert status == 403 and data["error"] == "forbidden"


def test_same_origin_post_is_accepted(client):
    for origin in (f"http://127.0.0.1:{client.port}", f"http://localhost:{client.port}"):
        status, _, data = client.post("/api/encode", {"text": "hi", "tokenizers": ["gpt2"]},
                                      headers={"Origin": origin, "Sec-Fetch-Site": "same-origin"})
        assert status == 200 and data["results"][0]["count"] == 1


def test_cross_site_fetch_metadata_is_refused(client):
    for site in ("cross-site", "same-site"):
        status, _, _ = client.request("GET", "/api/tokenizers", headers={"Sec-Fetch-Site": site})
        assert status == 403
    # Following a link to the page itself is fine; only the API is guarded.
    assert client.request("GET", "/", headers={"Sec-Fetch-Site": "cross-site"})[0] == 200


def test_post_needs_the_launch_token_and_json(client):
    payload = {"text": "hi", "tokenizers": ["gpt2"]}
    assert client.post("/api/encode", payload, token="")[0] == 403
    status, _, data = client.post("/api/encode", payload, token="x" * 32)
    assert status == 403 and data["error"] == "bad_token"
    # What a cross-site HTML form can send: a form content type and no token header.
    form = b"text=hi&tokenizers=gpt2"
    for ctype in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"):
        status, _, _ = client.request("POST", "/api/encode", form, {"Content-Type": ctype,
                                                                     "Content-Length": str(len(form))})
        assert status == 403
        assert client.post("/api/encode", json.dumps(payload).encode(), headers={"Content-Type": ctype})[0] == 415


def test_body_over_the_limit_is_413_without_reading_it(client):
    token = client.info()["token"]
    t0 = time.perf_counter()
    status, h, raw = client.request("POST", "/api/encode", None, {
        "Content-Type": "application/json", "X-Tokenmill-Token": token, "Content-Length": str(100 << 20)})
    assert time.perf_counter() - t0 < 1.0
    assert status == 413 and h["content-type"] == "application/json"
    data = json.loads(raw)
    assert data["error"] == "input_too_large" and data["limit_bytes"] == 1 << 20


def test_a_large_body_sent_in_full_gets_its_413(client):
    # The client sends all 3 MiB before reading: it must get the answer, not a reset.
    status, _, data = client.post("/api/encode", {"text": "a" * (3 << 20), "tokenizers": ["gpt2"]})
    assert status == 413 and data["error"] == "input_too_large"


def test_body_just_over_a_small_limit_is_413():
    with make_server(port=0, max_body=1000).start() as srv:
        c = Client(srv.port)
        assert c.post("/api/encode", {"text": "a" * 900, "tokenizers": ["gpt2"]})[0] == 200
        status, _, data = c.post("/api/encode", {"text": "a" * 1000, "tokenizers": ["gpt2"]})
        assert status == 413 and data == {"error": "input_too_large", "limit_bytes": 1000,
                                          "message": data["message"]}


def test_one_mebibyte_of_adversarial_text_is_answered(client):
    text = "x" * ((1 << 20) - 100)
    t0 = time.perf_counter()
    r = client.encode(text, ["o200k_base"])["results"][0]
    assert r["count"] == tokenmill.get_encoding("o200k_base").count(text)
    assert r["truncated"] and time.perf_counter() - t0 < 10


@pytest.mark.parametrize("body, message", [
    (b"\xff\xfe{}", "not UTF-8"),
    (b"{not json", "not JSON"),
    (b"[1, 2]", "JSON object"),
    (b'{"text": 5, "tokenizers": ["gpt2"]}', '"text"'),
    (b'{"text": "hi", "tokenizers": "gpt2"}', '"tokenizers"'),
    (b'{"text": "hi", "tokenizers": ["gpt2"], "parse_special": "yes"}', '"parse_special"'),
    (b'{"text": "\\ud800", "tokenizers": ["gpt2"]}', "lone surrogate"),
])
def test_bad_bodies_are_400_with_a_message(client, body, message):
    status, _, data = client.post("/api/encode", body)
    assert status == 400 and data["error"] == "bad_request" and message in data["message"]


def test_missing_length_and_chunked_bodies_are_refused(client):
    token = client.info()["token"]
    h = {"Content-Type": "application/json", "X-Tokenmill-Token": token}
    assert client.request("POST", "/api/encode", None, h)[0] == 411
    assert client.request("POST", "/api/encode", b"0\r\n\r\n", {**h, "Transfer-Encoding": "chunked"})[0] == 411


def test_many_concurrent_requests_and_idle_connections(client):
    idle = [socket.create_connection(("127.0.0.1", client.port), timeout=10) for _ in range(8)]
    try:
        results: list[int] = []

        def one() -> None:
            results.append(client.encode("hello world", ["gpt2", "cl100k_base"])["results"][0]["count"])

        threads = [threading.Thread(target=one) for _ in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert results == [2] * 40
    finally:
        for s in idle:
            s.close()


def test_samples_endpoint_counts_the_bundled_texts(client):
    status, _, data = client.post("/api/samples", {"tokenizers": ["gpt2", "broken-tokenizer.json"]})
    assert status == 200
    bundled = samples()
    assert [s["name"] for s in data["samples"]] == [s.name for s in bundled] and "English" in [s.name for s in bundled]
    gpt2 = tokenmill.get_encoding("gpt2")
    assert data["results"][0]["counts"] == [gpt2.count(s.text()[:200_000], **encode_options()) for s in bundled]
    assert "error" in data["results"][1]


# ---- the page's files ---------------------------------------------------------------------------


def test_page_assets_are_local_and_script_free_html():
    html = STATIC.joinpath("index.html").read_text(encoding="utf-8")
    assert 'data-testid="input"' in html
    # No inline script or style, no event-handler attributes, nothing from another origin.
    assert not re.search(r"<script(?![^>]*\bsrc=)", html) and "<style" not in html
    assert not re.search(r"\sstyle=", html) and not re.search(r"\son[a-z]+=", html)
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    css = STATIC.joinpath("style.css").read_text(encoding="utf-8")
    assert "url(" not in css and "@import" not in css


def test_app_js_builds_the_dom_without_html_strings():
    js = STATIC.joinpath("app.js").read_text(encoding="utf-8")
    for banned in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                   "setAttribute(\"style", "cssText", "javascript:", "http://", "https://"):
        assert banned not in js, banned
    assert "textContent" in js and "createElement" in js


def test_static_files_ship_as_package_data():
    names = {p.name for p in STATIC.iterdir()}
    assert {"index.html", "app.js", "style.css", "favicon.svg"} <= names


# ---- the Python entry point and the command line ------------------------------------------------


def test_make_server_checks_its_arguments(tmp_path):
    with pytest.raises(InputError, match="neither a standard encoding"):
        make_server([str(tmp_path / "missing.json")])
    with pytest.raises(InputError, match="port"):
        make_server(port=70000)
    with pytest.raises(InputError, match="not offered"):
        make_server(default=["nope"])


def test_tokenizer_objects_and_repeated_labels(files):
    enc = tokenmill.get_encoding("gpt2")
    cat = Catalog([files["evil"], files["evil"], enc])
    assert cat.labels()[-3:] == ["evil-vocab.json", "evil-vocab.json (2)", "gpt2 (2)"]
    r = encode_response(cat, {"text": "hi", "tokenizers": ["evil-vocab.json (2)", "gpt2 (2)"]})
    assert [x["name"] for x in r["results"]] == ["evil-vocab.json (2)", "gpt2 (2)"] and r["results"][1]["count"] == 1


def test_cli_port_in_use_is_a_one_line_error(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert main(["serve", "--port", str(port), "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tokenmill: error: ") and f"port {port}" in err and "in use" in err


def test_cli_missing_tokenizer_file_is_a_one_line_error(capsys, tmp_path):
    assert main(["serve", "--port", "0", "--no-browser", "--tokenizer", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tokenmill: error: ") and "nope.json" in err


def test_cli_help_lists_the_options(capsys):
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    for opt in ("--port", "--tokenizer", "--no-browser"):
        assert opt in out


def test_cli_serves_until_ctrl_c(files):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    # -X faulthandler: if the server outlives Ctrl-C (this timed out twice in ~40 local runs of
    # the suite, never alone), SIGABRT makes it print every thread's stack for the report.
    proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "tokenmill.cli", "serve", "--port", "0", "--no-browser",
                             "--tokenizer", str(files["evil"]), "--tokenizer", str(files["bert"])],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            # A run started in the background by a shell inherits SIGINT ignored.
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        url = proc.stdout.readline().strip()
        m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/", url)
        assert m, url
        names = _names(Client(int(m.group(1))))
        assert "evil-vocab.json" in names and "bert-base-uncased/tokenizer.json" in names
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            out, err = proc.communicate(timeout=20)
            pytest.fail(f"the server did not stop within 20 s of SIGINT; its threads then:\n{err}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped" in err
