"""`tokenmill.analysis.inspect` and ``tokenmill inspect``: vocabulary report, Land and
Bartolo's round-trip categories, glitch-token candidates and the embedding indicator."""

from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pytest

import tokenmill
from tokenmill.analysis import glitch
from tokenmill.analysis.inspect import inspect, utf8_fragment
from tokenmill.cli import main
from tokenmill.cli.inspect import _histogram
from tokenmill.errors import CorpusError, InputError
from tokenmill.formats.gpt2 import canonical_split

SGM = 43453  # " SolidGoldMagikarp" in gpt2 / r50k_base
# Glitch tokens of GPT-2 found by Rumbelow and Watkins (2023) and by Land and Bartolo (2024).
KNOWN_GPT2 = {" SolidGoldMagikarp": 43453, " TheNitromeFan": 42090, " TheNitrome": 42089, "embedreportprint": 30898,
              "cloneembedreportprint": 30899, " RandomRedditor": 36173, "InstoreAndOnline": 40241, " petertodd": 37444,
              " davidjl": 23282, " guiActiveUnfocused": 30210, "ForgeModLoader": 24934, " Adinida": 46600}
NEVER_VALID = {0xC0, 0xC1, *range(0xF5, 0x100)}


@pytest.fixture(scope="module")
def gpt2_report():
    return inspect("gpt2", top=500)


def _ids(section):
    return [t["id"] for t in section["tokens"]]


# ------------------------------------------------------------------------ glitch candidates
def test_solidgoldmagikarp_is_in_the_default_top_candidates(gpt2_report):
    g = gpt2_report["glitch_candidates"]
    assert g["ranking"] == "merge-chain" and g["max_count"] == 0
    ranked = _ids(g)
    assert SGM in ranked[:100], "the default top (100) must hold ' SolidGoldMagikarp'"
    sgm = g["tokens"][ranked.index(SGM)]
    assert sgm["token"] == " SolidGoldMagikarp" and sgm["count"] == 0
    assert sgm["parent"] == {"id": 42202, "token": "GoldMagikarp"}  # " Solid" + "GoldMagikarp"
    # The verbatim chains of GPT-2's tokenizer data lead the list.
    top20 = ranked[:20]
    for name in ("cloneembedreportprint", " TheNitromeFan", "embedreportprint", "InstoreAndOnline", " TheNitrome"):
        assert KNOWN_GPT2[name] in top20, name
    rank = {i: k for k, i in enumerate(ranked)}
    assert all(KNOWN_GPT2[n] in rank for n in (" petertodd", " RandomRedditor", " guiActiveUnfocused")), "in the top 500"
    assert rank[KNOWN_GPT2[" petertodd"]] < 150


def test_known_glitch_tokens_are_never_produced_by_the_reference_corpus():
    enc = tokenmill.get_encoding("gpt2")
    counts, info = glitch.count_tokens(enc)
    assert info["files"][-1] == "the-verdict.txt" and info["bytes"] > 4_000_000
    for name, i in KNOWN_GPT2.items():
        assert enc.decode([i]) == name and counts[i] == 0, name
    assert counts[enc.encode_single_token(" the")] > 10_000


def test_merge_parents_agree_with_the_gpt2_merge_reader():
    enc = tokenmill.get_encoding("gpt2")
    ranks = enc.mergeable_ranks()
    tokens = {r: t for t, r in ranks.items()}
    sample = list(range(300, 50256, 97))
    parents = glitch.merge_parents(tokens, sample)
    assert parents is not None
    for i in sample:
        a, b = canonical_split(tokens[i], i, ranks)
        ages = [-1 if len(x) == 1 else ranks[x] for x in (a, b)]
        assert parents[i] == max(ages), tokens[i]


def test_ranking_without_a_merge_order_is_by_length(shared_data):
    r = inspect(str(shared_data / "hf/bert-base-uncased/vocab.txt"), top=5)
    g = r["glitch_candidates"]
    assert g["ranking"] == "length" and g["count"] > 1000
    lengths = [len(t["token"]) for t in g["tokens"]]
    assert lengths == sorted(lengths, reverse=True)


def test_max_count_widens_the_candidates(gpt2_report):
    r = inspect("gpt2", top=5, max_count=3)
    assert r["glitch_candidates"]["count"] > gpt2_report["glitch_candidates"]["count"]
    assert all(t["count"] <= 3 for t in r["glitch_candidates"]["tokens"])


# ------------------------------------------------------------------------ round trip
def test_gpt2_round_trip_categories(gpt2_report):
    r = gpt2_report
    enc = tokenmill.get_encoding("gpt2")
    assert (r["vocab_size"], r["assigned"], r["unassigned"]["count"]) == (50257, 50257, 0)
    assert r["special_tokens"] == [{"id": 50256, "token": "<|endoftext|>"}]
    assert r["unreachable"]["count"] == 0 and r["round_trip"]["method"] == "bytes"
    invalid = {enc.token_bytes(i) for i in _ids(r["invalid_utf8"])}
    assert invalid == {bytes([b]) for b in NEVER_VALID} and r["invalid_utf8"]["count"] == 13
    partial = _ids(r["partial_utf8"])
    assert r["partial_utf8"]["count"] == len(partial) == 331
    single = {enc.token_bytes(i)[0] for i in partial if len(enc.token_bytes(i)) == 1}
    assert single == set(range(0x80, 0x100)) - NEVER_VALID  # every other high byte is a piece of a character
    for i in partial:
        data = enc.token_bytes(i)
        with pytest.raises(UnicodeDecodeError):
            data.decode("utf-8")
        assert utf8_fragment(data) == "partial"
    assert r["round_trip"]["reachable"] + r["partial_utf8"]["count"] + r["invalid_utf8"]["count"] == 50256
    assert r["length_histogram"][1] == 256 and sum(r["length_histogram"].values()) == 50256
    assert r["longest"][0]["bytes"] == 128 and r["longest"][0]["bytes"] >= r["longest"][-1]["bytes"]


def test_cl100k_round_trip_matches_a_direct_count():
    enc = tokenmill.get_encoding("cl100k_base")
    r = inspect(enc, top=5)
    undecodable = [i for i in range(enc.n_vocab) if i not in enc.special_tokens.values() and _undecodable(enc, i)]
    assert r["partial_utf8"]["count"] + r["invalid_utf8"]["count"] == len(undecodable)
    assert r["invalid_utf8"]["count"] == 13 and r["unreachable"]["count"] == 0
    assert r["unassigned"]["count"] == 16 and r["assigned"] == 100261
    assert [s["token"] for s in r["special_tokens"]][0] == "<|endoftext|>"
    assert r["glitch_candidates"]["tokens"][0]["token"] == " ForCanBeConvertedToForeach"


def _undecodable(enc, i):
    try:
        enc.token_bytes(i).decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True
    except (KeyError, ValueError):  # unassigned
        return False


def test_o200k_unassigned_ids_and_unreachable_tokens():
    r = inspect("o200k_base", top=20)
    assert r["unassigned"]["count"] == 19 and r["unassigned"]["ids"][0] == 199998
    unreachable = {t["id"]: t for t in r["unreachable"]["tokens"]}
    assert 3413 in unreachable and unreachable[3413]["token"] == " I'"  # " I'" never survives: "'" splits it
    assert unreachable[3413]["reencoded"] == [357, 6] and unreachable[3413]["kind"] == "split"


def test_utf8_fragment_agrees_with_pythons_encoder():
    """Every 1- and 2-byte string against ground truth from Python's encoder: a piece of valid
    text is inside one character's UTF-8, or the end of one and the start of the next. The
    BMP and the 4-byte characters with each second byte hold every such pair."""
    inner, pre, suf = set(), set(), set()
    chars = [chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000]
    for lead in range(0xF0, 0xF5):
        for b2 in range(0x80, 0xC0):
            try:
                chars.append(bytes([lead, b2, 0x80, 0x80]).decode())
            except UnicodeDecodeError:  # F0 80..8F and F4 90..BF: overlong or past U+10FFFF
                pass
    for ch in chars:
        e = ch.encode()
        pre.add(e[:1])
        suf.add(e[-1:])
        inner.update(e[j : j + k] for k in (1, 2) for j in range(len(e) - k + 1))
    cases = [bytes([a]) for a in range(256)] + [bytes([a, b]) for a in range(256) for b in range(256)]
    bad = [d for d in cases if (utf8_fragment(d) != "invalid") != (d in inner or (len(d) == 2 and d[:1] in suf and d[1:] in pre))]
    assert not bad, bad[:10]
    longer = {b"\xbf\xbf\xbf": "partial", b"\x80\x80\x80\x80": "invalid", b"\xe2\x82\xacA\xf0\x9f": "partial",
              b"\xf0\x9f\x98": "partial", b"\xf4\x90\x80": "invalid", b"\xed\xa0\x80": "invalid", b"a\xe0\x80": "invalid",
              b"\x80a\xc3": "partial", b"\xc3\xa9\xc3": "partial", b"\xe2\x82A": "invalid", "é".encode(): "whole"}
    assert {d: utf8_fragment(d) for d in longer} == longer


def test_bert_string_vocabulary(shared_data):
    path = shared_data / "hf/bert-base-uncased/tokenizer.json"
    r = inspect(str(path), top=2000)
    assert r["byte_level"] is False and r["round_trip"]["method"] == "text"
    assert [s["token"] for s in r["special_tokens"]] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    unreachable = {t["id"]: t for t in r["unreachable"]["tokens"]}
    assert unreachable[1]["token"] == "[unused0]" and unreachable[1]["kind"] == "placeholder"
    assert 2133 in unreachable  # "...": BERT splits punctuation, so the token never occurs
    assert 29612 in unreachable  # "##!": likewise
    assert 28705 not in unreachable  # "##qvist" ends a word: reachable after a word start
    assert 2000 not in unreachable  # "to"
    assert (r["partial_utf8"]["count"], r["invalid_utf8"]["count"]) == (0, 0)
    placeholders = sum(t["kind"] == "placeholder" for t in unreachable.values())
    assert placeholders == 994 and r["unreachable"]["count"] > 1000
    # The WordPiece vocab.txt of the same model gives the same answer.
    r2 = inspect(str(shared_data / "hf/bert-base-uncased/vocab.txt"), top=2000)
    assert _ids(r2["unreachable"]) == _ids(r["unreachable"])
    # Counting adds no template tokens: [CLS] and [SEP] are never counted.
    counts, _ = glitch.count_tokens(tokenmill.load(path), [shared_data / "the-verdict.txt"])
    assert counts[101] == counts[102] == 0 and counts.sum() > 4000


def test_byte_fallback_tokens(shared_data):
    r = inspect(str(shared_data / "hf/mistral-7b-v0.1.tokenizer.json"), top=300, corpus=[shared_data / "the-verdict.txt"])
    assert r["invalid_utf8"]["count"] == 13 and {t["token"] for t in r["invalid_utf8"]["tokens"]} >= {"<0xC0>", "<0xFF>"}
    assert r["partial_utf8"]["count"] == 128 - 13
    unreachable = {t["token"] for t in r["unreachable"]["tokens"]}
    assert "<0x41>" in unreachable and "<0x0A>" not in unreachable  # "A" has its own token; "\n" only the byte
    assert r["glitch_candidates"]["ranking"] == "merge-chain"


# ------------------------------------------------------------------------ embeddings
def _planted(tmp_path, rows=50257, dim=24, planted=(1000, 5000, 20000, SGM), reference=()):
    rng = np.random.default_rng(7)
    m = rng.standard_normal((rows, dim)).astype(np.float32)
    shared = rng.standard_normal(dim)
    shared /= np.linalg.norm(shared)
    m += (rng.standard_normal(rows) * 8)[:, None] * shared  # a dominant first principal component
    unused = rng.standard_normal(dim) * 0.5
    for i in list(planted) + list(reference):
        m[i] = unused + rng.standard_normal(dim) * 0.05 + rng.standard_normal() * 8 * shared
    path = tmp_path / "emb.npy"
    np.save(path, m)
    return path


def test_embedding_indicator_finds_planted_rows(tmp_path):
    never = [124, 125, *range(177, 188)]  # gpt2's never-valid bytes: the default reference
    path = _planted(tmp_path, reference=never)
    r = inspect("gpt2", embeddings=path, top=6)
    e = r["embeddings"]
    assert e["shape"] == [50257, 24] and e["reference"]["count"] == 13 and "never-valid" in e["reference"]["source"]
    assert sorted(c["id"] for c in e["candidates"][:4]) == [1000, 5000, 20000, SGM]
    assert e["candidates"][3]["distance"] < 0.1 < e["candidates"][4]["distance"]
    # Without removing the shared component the planted rows drown in it.
    m = np.load(path)
    d0, _ = glitch.embedding_distances(m, never, components=0)
    d1, _ = glitch.embedding_distances(m, never, components=1)
    assert set(np.argsort(d1)[:17]) >= {1000, 5000, 20000, SGM}
    assert not set(np.argsort(d0)[:17]) >= {1000, 5000, 20000, SGM}


def test_padding_rows_and_given_ids_are_the_reference(tmp_path):
    path = _planted(tmp_path, rows=50304, reference=range(50257, 50304))
    r = inspect("gpt2", embeddings=path, top=4)
    assert r["embeddings"]["reference"]["count"] == 47 and "past the tokenizer" in r["embeddings"]["reference"]["source"]
    assert sorted(c["id"] for c in r["embeddings"]["candidates"]) == [1000, 5000, 20000, SGM]
    r = inspect("gpt2", embeddings=np.load(path), unused_ids=range(50257, 50304), top=4)
    assert r["embeddings"]["reference"]["source"].startswith("given ids")
    with pytest.raises(InputError, match="unused ids"):
        inspect("gpt2", embeddings=path, unused_ids=[60000])


@pytest.mark.parametrize("matrix, message", [
    (np.zeros((100, 8), np.float32), "has 100 rows but the tokenizer has 50257 ids"),
    (np.zeros((8, 50257), np.float32), "looks transposed"),
    (np.zeros((50257, 8), np.int32), "must be a float array"),
    (np.zeros(50257, np.float32), "2-D"),
])
def test_bad_embeddings(tmp_path, capsys, matrix, message):
    path = tmp_path / "e.npy"
    np.save(path, matrix)
    with pytest.raises(InputError, match=message):
        inspect("gpt2", embeddings=path)
    assert main(["inspect", "gpt2", "-q", "--embeddings", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tokenmill: error:") and message in err and "Traceback" not in err


def test_embeddings_with_nan_or_not_npy(tmp_path, capsys):
    m = np.zeros((50257, 4), np.float32)
    m[7, 1] = np.nan
    np.save(tmp_path / "nan.npy", m)
    with pytest.raises(InputError, match="NaN"):
        inspect("gpt2", embeddings=tmp_path / "nan.npy")
    (tmp_path / "text.npy").write_text("not an array")
    assert main(["inspect", "gpt2", "-q", "--embeddings", str(tmp_path / "text.npy")]) == 2
    err = capsys.readouterr().err
    assert "not a .npy file" in err and "pickle" not in err  # numpy's message talks about pickles


# ------------------------------------------------------------------------ corpus input
def test_corpus_errors_name_the_file(tmp_path, capsys):
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("café\n".encode("latin-1"))
    broken = tmp_path / "broken.txt.gz"
    broken.write_bytes(gzip.compress(b"hello world\n" * 100)[:40])
    enc = tokenmill.get_encoding("gpt2")
    for path, message in ((binary, "binary"), (latin1, "not UTF-8"), (broken, "gzip")):
        with pytest.raises(CorpusError, match=message) as e:
            glitch.count_tokens(enc, [path])
        assert str(path) in str(e.value)
        assert main(["inspect", "gpt2", "-q", "--corpus", str(path)]) == 2
        err = capsys.readouterr().err
        assert str(path) in err and "Traceback" not in err
    assert main(["inspect", "gpt2", "--corpus", str(tmp_path / "missing.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["inspect", "gpt2", "--corpus", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_a_big_corpus_is_read_in_bounded_pieces(tmp_path):
    line = "The quick brown fox jumps over the lazy dog. " * 20 + "\n"
    path = tmp_path / "big.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for _ in range(3000):
            f.write(line)
        f.write("x" * 300_000)  # a long run without a newline
    pieces = list(glitch._pieces(path, 1 << 16, None))
    assert max(len(p) for p, _ in pieces) <= 2 << 16
    assert "".join(p for p, _ in pieces) == line * 3000 + "x" * 300_000
    enc = tokenmill.get_encoding("gpt2")
    small, info = glitch.count_tokens(enc, [path], chunk_size=1 << 16)
    whole = np.bincount(enc.encode_to_numpy(line * 3000 + "x" * 300_000), minlength=enc.n_vocab)
    assert abs(int(small.sum()) - int(whole.sum())) <= len(pieces)  # cuts only move a few boundaries
    assert info["bytes"] == len(line) * 3000 + 300_000  # text bytes, not the compressed size


def test_openai_counts_are_cut_at_safe_points_and_exact(tmp_path):
    # Pieces end at `safe_cut` points, so small pieces give exactly the whole text's counts
    # (cut after line breaks, "\n\n\n" runs split differently: 50 MB of one line was 8 off).
    text = ("Hello  world,\n\n\n   indented 998 9988\tthe end. é中文\n" * 400) + "word " * 3000
    path = tmp_path / "text.bin"  # gzip found by its magic bytes, not by the name
    path.write_bytes(gzip.compress(text.encode()))
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        enc = tokenmill.get_encoding(name)
        counts, info = glitch.count_tokens(enc, [path], chunk_size=1000)
        whole = np.bincount(enc.encode_to_numpy(text, disallowed_special=()), minlength=enc.n_vocab)
        assert (counts == whole).all(), name
        assert info["tokens"] == enc.count(text, disallowed_special=())


def test_invalid_utf8_offsets(tmp_path):
    end = tmp_path / "end.txt"
    end.write_bytes(b"caf\xe9")  # cut off at the end of the file: the byte is the 4th (offset 3)
    middle = tmp_path / "middle.txt"
    middle.write_bytes(b"abc" * 1000 + b"caf\xe9 x\n")
    for path, offset in ((end, 3), (middle, 3003)):
        for size in (2, 7, 1 << 16):
            with pytest.raises(CorpusError) as e:
                list(glitch._pieces(path, size, None))
            assert e.value.offset == offset, (path.name, size)


# ------------------------------------------------------------------------ CLI
def test_histogram_header_is_aligned():
    for hist in ({1: 2}, {1: 256, 2: 1916, 128: 1}):
        lines = _histogram(hist)
        ends = {re.match(r"\s*\S+", line).end() for line in lines}  # where the length column ends
        assert len(ends) == 1 and lines[0].split() == ["bytes", "tokens"], lines


def test_cli_json_shape(capsys):
    assert main(["inspect", "gpt2", "--json", "--top", "3", "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    r = json.loads(captured.out)
    assert set(r) == {"name", "family", "byte_level", "vocab_size", "assigned", "unassigned", "special_tokens",
                      "length_histogram", "mean_length", "longest", "round_trip", "unreachable", "partial_utf8",
                      "invalid_utf8", "reference_corpus", "glitch_candidates", "embeddings"}
    assert r["name"] == "gpt2" and r["vocab_size"] == 50257 and r["embeddings"] is None
    assert len(r["longest"]) == 3 and len(r["glitch_candidates"]["tokens"]) == 3
    assert set(r["glitch_candidates"]["tokens"][0]) == {"id", "token", "count", "score", "parent"}
    assert r["length_histogram"]["1"] == 256  # JSON object keys are strings


def test_cli_report_and_progress_notes(capsys):
    assert main(["inspect", "gpt2", "--top", "100"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    for heading in ("gpt2: byte-level byte_bpe, 50,257 ids", "token length in bytes", "longest tokens (top 100)",
                    "round trip:", "never-valid UTF-8 tokens (first 13 of 13)", "glitch-token candidates: ",
                    "ranked by merge chain"):
        assert heading in out, heading
    assert "' SolidGoldMagikarp'  <- 'GoldMagikarp'" in out
    assert "counting tokens of the bundled reference corpus" in captured.err


def test_cli_bad_arguments(capsys):
    assert main(["inspect", "no-such-encoding"]) == 2
    assert "unknown tokenizer 'no-such-encoding': give a standard encoding" in capsys.readouterr().err
    assert main(["inspect", "gpt2", "--top", "0"]) == 2
    assert main(["inspect", "gpt2", "--unused", "5-2"]) == 2
    assert "increasing range" in capsys.readouterr().err
    with pytest.raises(InputError, match="top"):
        inspect("gpt2", top=0)
