"""Tests of the streaming corpus reader (`tokenmill.data.corpus.Corpus`, `tokenmill.data.chunks`).

Every input kind (txt, gzip, JSON lines, parquet, lists of paths, iterables, generators), the
cutting claim (chunks concatenate to the text, and pre-tokenizing them one by one gives the
whole text's pre-tokens, on the Debian handbook texts in ../shared/data), the error messages
(file and byte offset, file:line), and the progress counters.
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import sys
from pathlib import Path

import pytest

import peers
import tokenmill
from tokenmill import _core
from tokenmill.data.chunks import iter_cut_points, safe_cut
from tokenmill.data.corpus import Corpus
from tokenmill.errors import CorpusFileNotFoundError
from tokenmill.errors import CorpusError

HANDBOOKS = ["debian-handbook.en-US.txt.gz", "debian-handbook.ja-JP.txt.gz"]
PATTERN_ENCODINGS = ["r50k_base", "cl100k_base", "o200k_base"]


def read_all(corpus) -> list[str]:
    return list(corpus.chunks())


def pretokens(enc, text: str) -> list[bytes]:
    b = text.encode("utf-8")
    return [b[x:y] for x, y in enc._core.split(text)]


def write_jsonl(path: Path, rows, gz: bool = False) -> Path:
    data = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows).encode("utf-8")
    if gz:
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return path


def write_parquet(path: Path, columns: dict) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns), path, row_group_size=3)
    return path


# ----------------------------------------------------------------------------- input kinds
def test_txt_and_txt_gz(tmp_path):
    text = "naïve café 👍\nSecond line.\r\nThird\n"
    p = tmp_path / "a.txt"
    p.write_bytes(text.encode())
    g = tmp_path / "a.txt.gz"
    g.write_bytes(gzip.compress(text.encode()))
    for path in (p, g, str(p), str(g)):
        c = Corpus.from_arg(path)
        assert read_all(c) == [text]
        assert c.paths == [str(path)]
        assert (c.n_documents, c.text_bytes) == (1, len(text.encode()))
        assert c.bytes_read == c.total_bytes == os.path.getsize(path)


def test_gzip_detected_by_magic_and_format_override(tmp_path):
    p = tmp_path / "data.bin"
    p.write_bytes(gzip.compress(b'{"text": "hi"}\n'))
    assert read_all(Corpus.from_arg(p)) == ['{"text": "hi"}\n']
    assert read_all(Corpus.from_arg(p, format="jsonl")) == ["hi"]
    q = tmp_path / "data.txt"
    q.write_text('{"text": "a"}\n{"text": "b"}\n')
    assert read_all(Corpus.from_arg([q], format="jsonl")) == ["a", "b"]
    with pytest.raises(ValueError, match="format must be"):
        Corpus.from_arg(q, format="csv")


def test_jsonl_and_jsonl_gz(tmp_path):
    rows = [{"text": "first doc", "id": 1}, {"text": "ünïcode ✓"}, {"text": ""}, {"text": "last"}]
    for gz, name in [(False, "d.jsonl"), (True, "d.jsonl.gz"), (False, "d.ndjson")]:
        p = write_jsonl(tmp_path / name, rows, gz)
        c = Corpus.from_arg(p)
        assert read_all(c) == ["first doc", "ünïcode ✓", "last"]  # the empty document is skipped
        assert c.n_documents == 4
        assert c.text_bytes == sum(len(r["text"].encode()) for r in rows)
        assert c.bytes_read == c.total_bytes == p.stat().st_size


def test_jsonl_blank_lines_bom_crlf_and_no_final_newline(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"text": "a"}\r\n\n   \n{"text": "b\\nc"}\r\n{"text": "d"}')
    c = Corpus.from_arg(p)
    assert read_all(c) == ["a", "b\nc", "d"]
    assert c.n_documents == 3


def test_jsonl_custom_text_field(tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", [{"content": "x y", "text": 3}, {"content": "z"}])
    assert read_all(Corpus.from_arg(p, text_field="content")) == ["x y", "z"]


def test_parquet(tmp_path):
    docs = [f"document number {i} ✓" for i in range(10)] + [""]
    p = write_parquet(tmp_path / "d.parquet", {"text": docs, "n": list(range(11))})
    c = Corpus.from_arg(p)
    assert read_all(c) == docs[:-1]
    assert c.n_documents == 11
    assert c.text_bytes == sum(len(d.encode()) for d in docs)
    assert c.bytes_read == c.total_bytes == p.stat().st_size
    q = write_parquet(tmp_path / "e.parquet", {"body": ["b1", "b2"]})
    assert read_all(Corpus.from_arg(q, text_field="body")) == ["b1", "b2"]


def test_parquet_errors(tmp_path, monkeypatch):
    p = write_parquet(tmp_path / "d.parquet", {"body": ["a"], "n": [1]})
    with pytest.raises(CorpusError, match=r"d\.parquet: has no column 'text' \(columns: body, n\); pass text_field="):
        read_all(Corpus.from_arg(p))
    with pytest.raises(CorpusError, match="column 'n' has type int64, not string"):
        read_all(Corpus.from_arg(p, text_field="n"))
    q = write_parquet(tmp_path / "n.parquet", {"text": ["a", "b", "c", "d", None]})
    with pytest.raises(CorpusError, match="row 4: column 'text' is null"):
        read_all(Corpus.from_arg(q))
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(CorpusError, match="bad.parquet: not a readable parquet file"):
        read_all(Corpus.from_arg(bad))
    with pytest.raises(CorpusError, match="gzipped parquet"):
        Corpus.from_arg(_touch(tmp_path / "x.parquet.gz"))
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(CorpusError, match="pip install pyarrow"):
        Corpus.from_arg(p)


def _touch(p: Path) -> Path:
    p.write_bytes(b"")
    return p


def test_list_of_paths_mixed_formats(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("alpha beta\n")
    b = write_jsonl(tmp_path / "b.jsonl.gz", [{"text": "gamma"}, {"text": "delta"}], gz=True)
    c_ = write_parquet(tmp_path / "c.parquet", {"text": ["epsilon"]})
    for arg in ([a, b, c_], (str(a), str(b), str(c_)), [str(a), b, c_]):
        c = Corpus.from_arg(arg)
        assert read_all(c) == ["alpha beta\n", "gamma", "delta", "epsilon"]
        assert c.n_documents == 4
        assert c.bytes_read == c.total_bytes == sum(p.stat().st_size for p in (a, b, c_))


def test_iterables_of_str(tmp_path):
    docs = ["one", "", "two ✓", "three"]
    for arg in (docs, tuple(docs)):
        c = Corpus.from_arg(arg)
        assert read_all(c) == ["one", "two ✓", "three"]
        assert read_all(c) == ["one", "two ✓", "three"]  # lists can be read again
        assert c.total_bytes == c.bytes_read == sum(map(len, docs))
        assert (c.n_documents, c.text_bytes) == (4, sum(len(d.encode()) for d in docs))
    c = Corpus.from_arg(d.upper() for d in docs)
    assert c.total_bytes is None
    assert list(c) == ["ONE", "TWO ✓", "THREE"]
    with pytest.raises(CorpusError, match="already been read"):
        read_all(c)
    # an iterator of texts that look like file names is documents, as documented
    assert read_all(Corpus.from_arg(iter(["notes.txt", "a.jsonl"]))) == ["notes.txt", "a.jsonl"]
    assert Corpus.from_arg(c) is c


def test_batches(tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", [{"text": f"doc{i:03d}"} for i in range(100)])  # 6 chars each
    batches = list(Corpus.from_arg(p).batches(max_chars=60))
    assert [len(b) for b in batches] == [10] * 10
    assert sum(batches, []) == [f"doc{i:03d}" for i in range(100)]
    text = peers.corpus_texts()["corpus/botchan.txt"]
    big = tmp_path / "big.txt"
    big.write_bytes(text.encode())
    batches = list(Corpus.from_arg(big, chunk_size=20_000).batches(max_chars=10_000))
    assert all(len(b) == 1 for b in batches) and len(batches) > 5
    assert "".join(b[0] for b in batches) == text.removeprefix("\ufeff")  # a BOM is not text


# ----------------------------------------------------------------------------- cutting
def test_cut_helpers_reexported():
    assert tokenmill.data.safe_cut is safe_cut and tokenmill.data.iter_cut_points is iter_cut_points
    assert safe_cut("hello world") == 5 and list(iter_cut_points("one two\nThree")) == [3, 7, 8]


@pytest.mark.parametrize("name", HANDBOOKS)
def test_chunks_pretokenize_like_whole_text(name):
    """Streaming a real gzipped file in small blocks: chunks join to the text, and
    pre-tokenizing each chunk gives exactly the pre-tokens of the whole text."""
    path = peers.shared_data() / "corpus" / name
    text = peers.corpus_texts()["corpus/" + name]
    c = Corpus.from_arg(path, chunk_size=3001)
    chunks = read_all(c)
    assert "".join(chunks) == text
    assert len(chunks) > 100
    assert max(map(len, chunks)) <= 2 * 3001
    assert c.bytes_read == c.total_bytes and c.text_bytes == len(text.encode())
    for enc_name in PATTERN_ENCODINGS:
        enc = tokenmill.get_encoding(enc_name)
        whole = pretokens(enc, text)
        assert [p for ch in chunks for p in pretokens(enc, ch)] == whole, enc_name
    enc = tokenmill.get_encoding("cl100k_base")
    assert [t for ch in chunks for t in enc.encode_ordinary(ch)] == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", HANDBOOKS)
def test_line_cuts_for_custom_patterns(name):
    """cuttable=False cuts only right after a line break: "X\\n" before a letter (rule A) when
    the block has such a point, and then the pre-tokens match exactly; else after the block's
    last line break, which changes about one pre-token per such cut."""
    path = peers.shared_data() / "corpus" / name
    text = peers.corpus_texts()["corpus/" + name]
    for enc_name in ("r50k_base", "o200k_base"):
        enc = tokenmill.get_encoding(enc_name)
        whole = pretokens(enc, text)
        chunks = read_all(Corpus.from_arg(path, chunk_size=30_000, cuttable=False))
        assert "".join(chunks) == text and len(chunks) > 20
        for a, b in zip(chunks, chunks[1:]):
            assert a[-1] == "\n" and not a[-2].isspace() and b[0].isalpha()
        assert [p for ch in chunks for p in pretokens(enc, ch)] == whole
        # small blocks often have no rule A point (blank lines between paragraphs)
        chunks = read_all(Corpus.from_arg(path, chunk_size=3001, cuttable=False))
        assert "".join(chunks) == text and len(chunks) > 200
        assert all(ch[-1] == "\n" for ch in chunks[:-1])
        fallback = sum(1 for a, b in zip(chunks, chunks[1:]) if a[-2].isspace() or not b[0].isalpha())
        assert 0 < fallback < len(chunks)
        changed = abs(len([p for ch in chunks for p in pretokens(enc, ch)]) - len(whole))
        assert changed <= fallback, (enc_name, changed, fallback)


def test_line_cuts_fall_back_to_any_line_break(tmp_path):
    """Indented lines (no rule A point): cut right after the block's last line break."""
    kjv = peers.corpus_texts()["corpus/kjv.txt.gz"][:300_000]
    # No rule A point: every "line" cut is the fallback right after a line break.
    assert all(kjv[i - 1] == "\n" and not (kjv[i - 2] != " " and kjv[i].isalpha())
               for i in [_core.last_cut(kjv, 0, hi, "line") for hi in range(1000, len(kjv), 7919)])
    p = tmp_path / "kjv.txt"
    p.write_bytes(kjv.encode())
    for arg in (p, [kjv]):
        chunks = read_all(Corpus.from_arg(arg, chunk_size=4000, cuttable=False))
        assert "".join(chunks) == kjv
        assert len(chunks) > 60 and max(map(len, chunks)) <= 8000
        assert all(ch.endswith("\n") for ch in chunks[:-1])


def test_no_cut_points_stay_one_chunk(tmp_path):
    p = tmp_path / "one-line.txt"
    text = "word " * 2000
    p.write_text(text)
    assert read_all(Corpus.from_arg(p, chunk_size=100, cuttable=False)) == [text]
    assert len(read_all(Corpus.from_arg(p, chunk_size=100))) > 50
    ws = tmp_path / "ws.txt"
    ws.write_text(" \n" * 5000)
    assert read_all(Corpus.from_arg(ws, chunk_size=100)) == [" \n" * 5000]


def test_big_documents_are_cut(tmp_path):
    text = peers.corpus_texts()["corpus/canterbury/alice29.txt"]
    enc = tokenmill.get_encoding("cl100k_base")
    for arg in ([text], write_jsonl(tmp_path / "d.jsonl", [{"text": text}, {"text": "small"}])):
        chunks = read_all(Corpus.from_arg(arg, chunk_size=5000))
        if not isinstance(arg, list):
            assert chunks[-1] == "small"
            chunks = chunks[:-1]
        assert "".join(chunks) == text
        assert len(chunks) > 25 and max(map(len, chunks)) <= 5000
        assert [p for ch in chunks for p in pretokens(enc, ch)] == pretokens(enc, text)
    # no cut point within chunk_size: the piece runs to the next one
    odd = "x" * 50 + " y" + "z" * 50
    assert read_all(Corpus.from_arg([odd], chunk_size=10)) == ["x" * 50, " y" + "z" * 50]


# ----------------------------------------------------------------------------- UTF-8 errors
def test_invalid_utf8_names_file_and_offset(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"hello \xff world")
    with pytest.raises(CorpusError) as ei:
        read_all(Corpus.from_arg(p))
    e = ei.value
    assert (e.path, e.offset) == (str(p), 6)
    assert str(e).startswith(f"{p}: byte 6: invalid UTF-8 (invalid start byte: ff)")
    assert 'errors="replace"' in str(e)
    assert read_all(Corpus.from_arg(p, errors="replace")) == ["hello \ufffd world"]
    with pytest.raises(ValueError, match="errors must be"):
        Corpus.from_arg(p, errors="ignore")


@pytest.mark.parametrize("gz", [False, True])
def test_invalid_utf8_offset_across_blocks(tmp_path, gz):
    data = b"word " * 1000 + b"\xe2\x82" + b" more"
    p = tmp_path / ("big.txt.gz" if gz else "big.txt")
    p.write_bytes(gzip.compress(data) if gz else data)
    with pytest.raises(CorpusError, match="byte 5000: invalid UTF-8") as ei:
        read_all(Corpus.from_arg(p, chunk_size=64))
    assert ei.value.offset == 5000 and str(p) in str(ei.value)
    # a bad byte at every position around a block boundary
    for k in range(60, 70):
        q = tmp_path / "k.txt"
        q.write_bytes(b"a" * k + b"\x80" + b"b" * 100)
        with pytest.raises(CorpusError) as ei:
            read_all(Corpus.from_arg(q, chunk_size=64))
        assert ei.value.offset == k
    # valid multi-byte characters split by every block boundary decode fine
    text = "é€👍 " * 500
    q.write_bytes(text.encode())
    for size in (61, 62, 63, 64):
        assert "".join(read_all(Corpus.from_arg(q, chunk_size=size))) == text
    trunc = tmp_path / "trunc.txt"
    trunc.write_bytes("price: 5€".encode()[:-1])
    with pytest.raises(CorpusError, match="byte 8: invalid UTF-8 .unexpected end of data"):
        read_all(Corpus.from_arg(trunc))


def test_lone_surrogates(tmp_path):
    with pytest.raises(CorpusError, match="corpus item 1: text has a lone surrogate U\\+D800 at character 1"):
        read_all(Corpus.from_arg(["ok", "a\ud800b"]))
    assert read_all(Corpus.from_arg(["ok", "a\ud800b"], errors="replace")) == ["ok", "a\ufffdb"]
    p = write_jsonl(tmp_path / "s.jsonl", ['{"text": "x"}', '{"text": "\\ud83d"}'])
    with pytest.raises(CorpusError, match=r"s\.jsonl:2: text has a lone surrogate U\+D83D"):
        read_all(Corpus.from_arg(p))
    assert read_all(Corpus.from_arg(p, errors="replace")) == ["x", "\ufffd"]


# ----------------------------------------------------------------------------- JSON lines errors
def test_jsonl_errors(tmp_path):
    p = write_jsonl(tmp_path / "d.jsonl", [{"text": "a"}, {"text": "b"}, "{not json"])
    with pytest.raises(CorpusError) as ei:
        read_all(Corpus.from_arg(p))
    assert str(ei.value).startswith(f"{p}:3: line is not valid JSON (")
    assert (ei.value.path, ei.value.line) == (str(p), 3)

    p = write_jsonl(tmp_path / "f.jsonl", [{"text": "a"}, {"a": 1, "b": 2}])
    with pytest.raises(CorpusError, match=r"f\.jsonl:2: line has no field 'text' \(fields: a, b\); pass text_field="):
        read_all(Corpus.from_arg(p))
    p = write_jsonl(tmp_path / "n.jsonl", [{"text": 5}])
    with pytest.raises(CorpusError, match=r"n\.jsonl:1: field 'text' is a JSON number, not a string"):
        read_all(Corpus.from_arg(p))
    p = write_jsonl(tmp_path / "z.jsonl", [{"text": None}])
    with pytest.raises(CorpusError, match="is a JSON null, not a string"):
        read_all(Corpus.from_arg(p))
    p = write_jsonl(tmp_path / "l.jsonl", [["text"]])
    with pytest.raises(CorpusError, match=r"l\.jsonl:1: line is a JSON array, not an object with a 'text' field"):
        read_all(Corpus.from_arg(p))


def test_jsonl_invalid_utf8_gives_line_and_offset(tmp_path):
    p = tmp_path / "u.jsonl"
    p.write_bytes(b'{"text": "a"}\n\n{"text": "b\xffc"}\n')
    with pytest.raises(CorpusError) as ei:
        read_all(Corpus.from_arg(p))
    assert (ei.value.line, ei.value.offset) == (3, 26)
    assert str(ei.value).startswith(f"{p}:3: byte 26: invalid UTF-8")
    assert read_all(Corpus.from_arg(p, errors="replace")) == ["a", "b\ufffdc"]
    # line numbers counted across read blocks (1 MiB) in a gzipped file
    rows = [{"text": "x" * 100}] * 20_000
    data = "".join(json.dumps(r) + "\n" for r in rows).encode() + b'{"text": "\xc3("}\n'
    g = tmp_path / "u.jsonl.gz"
    g.write_bytes(gzip.compress(data))
    with pytest.raises(CorpusError, match=r"u\.jsonl\.gz:20001: byte \d+: invalid UTF-8") as ei:
        read_all(Corpus.from_arg(g))
    assert ei.value.offset == data.index(b"\xc3")


# ----------------------------------------------------------------------------- bad arguments
def test_bad_corpus_arguments(tmp_path):
    with pytest.raises(CorpusFileNotFoundError) as ei:
        Corpus.from_arg("no such thing")
    assert str(ei.value) == "no such thing: no such file; to train on a text, pass it in a list: [text]"
    assert isinstance(ei.value, FileNotFoundError) and isinstance(ei.value, CorpusError)
    assert isinstance(pickle.loads(pickle.dumps(ei.value)), CorpusFileNotFoundError)
    with pytest.raises(CorpusError, match=r"a str that is not a file \('two\\nlines'\); .*pass it in a list: \[text\]"):
        Corpus.from_arg("two\nlines")
    with pytest.raises(CorpusFileNotFoundError, match="missing.txt: no such file"):
        Corpus.from_arg(tmp_path / "missing.txt")
    with pytest.raises(CorpusError, match="is a directory; pass the files in it, e.g. sorted.glob.glob"):
        Corpus.from_arg(tmp_path)
    with pytest.raises(CorpusError, match="no input files"):
        Corpus.from_arg([])
    a = tmp_path / "a.txt"
    a.write_text("x")
    with pytest.raises(CorpusFileNotFoundError, match=r"b\.txt: no such file .*iter\(texts\)"):
        Corpus.from_arg([str(a), str(tmp_path / "b.txt")])
    with pytest.raises(CorpusFileNotFoundError, match="typo.txt: no such file"):
        Corpus.from_arg(["typo.txt", "other.txt"])
    with pytest.raises(TypeError, match="corpus item 1 is a int, not a path"):
        Corpus.from_arg([a, 5])
    with pytest.raises(TypeError, match="corpus item 2 is a int, not a str"):
        read_all(Corpus.from_arg(["a", "b", 3]))
    with pytest.raises(TypeError, match="corpus item 0 is a bytes, not a str .decode bytes first"):
        read_all(Corpus.from_arg(iter([b"raw"])))
    with pytest.raises(TypeError, match="corpus must be a path"):
        Corpus.from_arg(42)
    with pytest.raises(TypeError, match="decode bytes first"):
        Corpus.from_arg(b"bytes")
    with pytest.raises(ValueError, match="chunk_size must be"):
        Corpus.from_arg(["x"], chunk_size=0)


def test_corrupt_gzip(tmp_path):
    good = gzip.compress(b"hello world " * 1000)
    for name, data in [("trunc.txt.gz", good[: len(good) // 2]), ("notgz.txt.gz", b"plain text"),
                       ("crc.txt.gz", good[:-8] + b"\0" * 8)]:
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(CorpusError, match=rf"{name}: corrupt or truncated gzip data"):
            read_all(Corpus.from_arg(p))


def test_empty_corpus_does_not_raise(tmp_path):
    e = _touch(tmp_path / "empty.txt")
    j = write_jsonl(tmp_path / "e.jsonl", ["", "  "])
    for arg in (e, [e, j], iter([]), [""]):
        c = Corpus.from_arg(arg)
        assert read_all(c) == [] and c.text_bytes == 0


# ----------------------------------------------------------------------------- progress
def test_progress_counters_grow_to_total(tmp_path):
    text = peers.corpus_texts()["corpus/botchan.txt"]
    p = tmp_path / "b.txt.gz"
    p.write_bytes(gzip.compress(text.encode()))
    q = write_jsonl(tmp_path / "b.jsonl", [{"text": line} for line in text.splitlines()])
    c = Corpus.from_arg([p, q], chunk_size=10_000)
    seen = []
    for _ in c.chunks():
        seen.append((c.bytes_read, c.text_bytes))
    assert seen == sorted(seen)
    assert 0 < seen[0][0] < c.total_bytes
    assert c.bytes_read == c.total_bytes == p.stat().st_size + q.stat().st_size
    # progress within the gzip file is in compressed bytes, so it never passes the file size
    assert max(b for b, t in seen if t <= len(text.encode())) <= p.stat().st_size


def test_byte_order_mark_is_not_text(tmp_path):
    (tmp_path / "b.txt").write_bytes(b"\xef\xbb\xbfhello world\r\n")
    c = Corpus.from_arg(str(tmp_path / "b.txt"))
    assert "".join(c.chunks()) == "hello world\r\n" and c.text_bytes == 13


def test_documents_are_whole_and_chunks_are_cut(tmp_path):
    text = "First line.\nSecond line.\n" * 50
    p = tmp_path / "a.txt"
    p.write_text(text, encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(json.dumps({"text": text}) + "\n" + json.dumps({"text": "two"}) + "\n", encoding="utf-8")
    for src in (str(p), [text], str(tmp_path / "b.jsonl")):
        c = Corpus.from_arg(src, chunk_size=100)
        docs = list(c.documents())
        assert docs[0] == text and c.n_documents == len(docs)
        chunks = list(Corpus.from_arg(src, chunk_size=100).chunks())
        assert len(chunks) > len(docs) and "".join(chunks).startswith(text)


# ----------------------------------------------------------------------------- the core's reader
from hypothesis import given, settings, strategies as st  # noqa: E402

from conftest import hyp_examples  # noqa: E402

_bytes_st = st.lists(st.sampled_from([b"a", b" ", b"\n", b"\xe2\x82\xac", b"\xe2\x82", b"\xff", b"\xed\xa0\x80", b"\xc3",
                                      b"\xf0\x9f\x98\x80", b"\x80", b"Z", b"\xef\xbb\xbf"]), max_size=200).map(b"".join)


@settings(max_examples=hyp_examples(200), deadline=None)
@given(_bytes_st, st.sampled_from([64, 65, 100]))
def test_replace_matches_pythons_decoder(tmp_path_factory, data, block):
    """errors="replace" in the core's reader gives Python's ``bytes.decode("utf-8", "replace")``
    (a leading byte-order mark dropped), whatever the block boundaries."""
    p = tmp_path_factory.mktemp("r") / "r.txt"
    p.write_bytes(data)
    want = data.decode("utf-8", "replace").removeprefix("\ufeff")
    for cuttable in (True, False):
        got = "".join(Corpus.from_arg(p, errors="replace", chunk_size=block, cuttable=cuttable).chunks())
        assert got == want
    lines = data.split(b"\n")
    q = p.with_suffix(".jsonl")
    q.write_bytes(b"\n".join(b'{"text": "' + line.replace(b"\\", b"").replace(b'"', b"") + b'"}' for line in lines))
    docs = list(Corpus.from_arg(q, errors="replace", chunk_size=block).documents())
    assert docs == [d for d in (line.decode("utf-8", "replace") for line in lines) if d]


def test_a_document_without_cut_points_is_read_whole(tmp_path):
    """A stretch with no safe cut point (no whitespace) longer than a block stays whole."""
    text = "ab,cd;" * 50_000 + "x tail"
    (tmp_path / "n.txt").write_text(text, encoding="utf-8")
    chunks = list(Corpus.from_arg(tmp_path / "n.txt", chunk_size=1000).chunks())
    assert chunks == ["ab,cd;" * 50_000 + "x", " tail"]


def test_core_reader_rejects_bad_arguments_and_batches(tmp_path):
    """The core reader's entry points: a clear tokenmill error for an unknown errors= or cut
    mode, a byte range of a gzipped file, and a parquet opener handing over inconsistent
    buffers (offsets past the data, too few offsets): never a panic or a wrong text."""
    from tokenmill.errors import InputError

    p = tmp_path / "a.txt"
    p.write_text("hello world\n", encoding="utf-8")
    with pytest.raises(InputError, match="errors must be"):
        _core.CorpusReader([(str(p), "text")], errors="ignore")
    with pytest.raises(InputError, match="mode must be"):
        _core.CorpusReader([(str(p), "text")], cut="words")
    g = tmp_path / "a.jsonl.gz"
    g.write_bytes(gzip.compress(b'{"text": "x"}\n'))
    counter = _core.WordCounter("r50k", [])
    with pytest.raises(InputError, match="byte range can only be read from a plain"):
        counter.add_files([(str(g), "jsonl")], "text", "safe", ranges=[(0, 5)])

    def rows(offsets: bytes, width: int = 4):
        return lambda path, start: iter([(b"abc", offsets, width, 0, 2, None)])

    q = tmp_path / "x.parquet"
    q.write_bytes(b"not read: the opener is fake")
    past = b"".join(i.to_bytes(4, "little") for i in (0, 2, 99))
    for bad in (rows(past), rows(b"\0" * 8), rows(past, width=3)):
        reader = _core.CorpusReader([(str(q), "parquet")], open_rows=bad)
        with pytest.raises(ValueError, match="parquet batch"):
            reader.next_texts()


def test_core_reader_takes_batches_as_byte_buffers_only(tmp_path):
    # Batches come as buffers read in place (Arrow's, viewed as unsigned bytes, or bytes);
    # anything else is refused with the batch named, never read as something else.
    import array

    import pyarrow as pa

    q = tmp_path / "x.parquet"
    q.write_bytes(b"not read: the opener is fake")
    good = b"".join(i.to_bytes(4, "little") for i in (0, 2, 5))

    def read(data, offsets=good):
        reader = _core.CorpusReader([(str(q), "parquet")], open_rows=lambda path, start: iter([(data, offsets, 4, 0, 2, None)]))
        return reader.next_texts()

    assert read(b"abcde") == (False, ["ab", "cde"])
    assert read(memoryview(pa.py_buffer(b"abcde")).cast("B"), memoryview(bytearray(good))) == (False, ["ab", "cde"])
    strided = memoryview(b"aXbXcXdXeX")[::2]
    for bad, why in ((7, "expected a buffer of bytes, not int"), ("abcde", "expected a buffer of bytes, not str"),
                     (pa.py_buffer(b"abcde"), "expected a buffer of bytes"),  # signed bytes, not viewed
                     (array.array("i", [1, 2]), "expected a buffer of bytes"),
                     (strided, "a buffer is not contiguous")):
        with pytest.raises(ValueError, match=f"parquet batch: {why}"):
            read(bad)
