"""Vocabulary loaders (ADVERSARIAL E1-E17, H1-H10): tiktoken rank files and GPT-2's
encoder.json + vocab.bpe. Every corruption is a `tokenmill.VocabFormatError` (a ValueError) that
names the file and, where it makes sense, the line."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import warnings

import pytest
import tiktoken.load as tkload

import peers
import tokenmill
from tokenmill import VocabFormatError
from tokenmill._io import read_verified
from tokenmill.registry import _FILES

SHIPPED = ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"]
PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


# --------------------------------------------------------------------------- a small valid rank file


def _line(tok: bytes, rank) -> bytes:
    return base64.b64encode(tok) + b" " + str(rank).encode()


BASE_LINES = [_line(bytes([i]), i) for i in range(256)] + [_line(b"ab", 256), _line(b"cd", 257)]
VALID = b"\n".join(BASE_LINES) + b"\n"
VALID_RANKS = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"cd": 257}


def _with_last(*lines: bytes) -> bytes:
    """The valid file with its last line (line 258) replaced by `lines`."""
    return b"\n".join(BASE_LINES[:257] + list(lines)) + b"\n"


def _write(tmp_path, data: bytes, name: str = "vocab.tiktoken"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_valid_file(tmp_path):
    p = _write(tmp_path, VALID)
    assert len(VALID.splitlines()) == 258
    assert tokenmill.load_tiktoken_bpe(p) == VALID_RANKS == tkload.load_tiktoken_bpe(str(p))
    assert tokenmill.load_tiktoken_bpe(str(p)) == VALID_RANKS
    enc = tokenmill.Encoding("small", PAT, tokenmill.load_tiktoken_bpe(p))
    assert enc.encode("abcd") == [256, 257]
    assert enc.n_vocab == 258


# (case id, file bytes, expected line or None, words one of which the message must contain)
CORRUPTIONS = [
    ("E1-empty", b"", None, ["empty"]),
    ("E2-blank-lines", b"\n\n  \n\t\n", None, ["empty"]),
    ("E2-whitespace", b"   ", None, ["empty"]),
    ("E3-invalid-base64", _with_last(b"!!!! 257"), 258, ["base64"]),
    ("E4-empty-token", _with_last(b" 257"), 258, ["empty token", "expected"]),
    ("E4-padding-only", _with_last(b"= 257"), 258, ["empty token", "base64"]),
    ("E5-missing-rank", _with_last(b"Y2Q="), 258, ["expected"]),
    ("E5-three-fields", _with_last(b"Y2Q= 257 9"), 258, ["expected"]),
    ("E5-tab", _with_last(b"Y2Q=\t257"), 258, ["expected"]),
    ("E5-leading-space", _with_last(b" Y2Q= 257"), 258, ["expected"]),
    ("E6-duplicate-token", _with_last(_line(b"ab", 257)), 258, ["duplicate token"]),
    ("E7-duplicate-rank", _with_last(_line(b"cd", 256)), 258, ["duplicate rank"]),
    ("E8-gap", _with_last(_line(b"cd", 259)), 258, ["expected rank 257"]),
    ("E8-out-of-order", b"\n".join(BASE_LINES[:256] + [_line(b"cd", 257), _line(b"ab", 256)]) + b"\n", 257, ["expected rank 256"]),
    ("E8-not-from-zero", b"\n".join(_line(bytes([i]), i + 1) for i in range(256)) + b"\n", 1, ["expected rank 0"]),
    ("E9-negative", _with_last(b"Y2Q= -5"), 258, ["invalid rank"]),
    ("E9-2**32", _with_last(b"Y2Q= 4294967296"), 258, ["invalid rank"]),
    ("E9-2**32-1", _with_last(b"Y2Q= 4294967295"), 258, ["invalid rank"]),
    ("E9-huge", _with_last(b"Y2Q= 99999999999999999999"), 258, ["invalid rank"]),
    ("E9-float", _with_last(b"Y2Q= 1e3"), 258, ["invalid rank"]),
    ("E9-hex", _with_last(b"Y2Q= 0x10"), 258, ["invalid rank"]),
    ("E9-plus", _with_last(b"Y2Q= +257"), 258, ["invalid rank"]),
    ("E9-arabic-digits", _with_last("Y2Q= \u0662\u0665\u0667".encode()), 258, ["invalid rank"]),
    ("E9-empty-rank", _with_last(b"Y2Q= "), 258, ["invalid rank", "expected"]),
    ("E14-nul-in-token", _with_last(b"Y2Q=\x00 257"), 258, ["base64"]),
    ("E14-nul-in-rank", _with_last(b"Y2Q= 25\x007"), 258, ["invalid rank"]),
    ("E14-long-token", _with_last(_line(b"x" * 5000, 257)), 258, ["longer than"]),
    ("E14-10MB-line", _with_last(b"A" * 10_000_000 + b" 257"), 258, ["longer than"]),
    ("E15-truncated-in-rank", VALID[:-3], 258, ["expected rank 257", "invalid rank"]),
    ("E15-truncated-after-token", VALID[:-4], 258, ["expected"]),
    ("E15-truncated-in-base64", VALID[:-7], 258, ["expected", "base64"]),
    ("E13-bom-twice", b"\xef\xbb\xbf\xef\xbb\xbf" + VALID, 1, ["base64", "expected"]),
    ("latin1-garbage", _with_last(b"Y2Q=\xe9 257"), 258, ["base64"]),
]


@pytest.mark.parametrize("case,data,line,words", CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_e_corruptions(tmp_path, case, data, line, words):
    p = _write(tmp_path, data, f"{case}.tiktoken")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_tiktoken_bpe(p)
    e = ei.value
    msg = str(e)
    assert isinstance(e, ValueError) and isinstance(e, tokenmill.TokenmillError)
    assert str(p) in msg, msg
    assert e.path == str(p)
    assert e.line == line, msg
    if line is not None:
        assert f"{p}:{line}:" in msg, msg
    assert any(w in msg for w in words), msg
    assert len(msg) < 1000  # a 10 MB line is not echoed back


def test_e8_allow_gaps(tmp_path):
    p = _write(tmp_path, _with_last(_line(b"cd", 300)))
    ranks = tokenmill.load_tiktoken_bpe(p, allow_gaps=True)
    assert ranks[b"cd"] == 300
    enc = tokenmill.Encoding("gaps", PAT, ranks)
    assert enc.n_vocab == 301
    assert enc.encode("abcd") == [256, 300]
    with pytest.raises(tokenmill.TokenIdError):  # D3: an id in the hole
        enc.decode([257])
    # out of order stays an error with gaps allowed
    p2 = _write(tmp_path, b"\n".join(BASE_LINES[:256] + [_line(b"cd", 300), _line(b"ab", 299)]) + b"\n", "order.tiktoken")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_tiktoken_bpe(p2, allow_gaps=True)
    assert ei.value.line == 258
    # duplicate rank stays an error with gaps allowed
    p3 = _write(tmp_path, _with_last(_line(b"cd", 256)), "dup.tiktoken")
    with pytest.raises(VocabFormatError, match="duplicate rank"):
        tokenmill.load_tiktoken_bpe(p3, allow_gaps=True)


def test_e10_missing_single_byte_at_load(tmp_path):
    # regression: the missing byte used to be reported only later, by Encoding()
    data = b"\n".join([_line(bytes([i]), i - 1) for i in range(1, 256)] + [_line(b"ab", 255), _line(b"cd", 256)]) + b"\n"
    p = _write(tmp_path, data)
    with pytest.raises(VocabFormatError, match="0x00"):
        tokenmill.load_tiktoken_bpe(p)


def test_e10_missing_single_byte_at_construction():
    ranks = {bytes([i]): i - 1 for i in range(1, 256)} | {b"ab": 255, b"cd": 256}
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.Encoding("missing", PAT, ranks)
    assert "0x00" in str(ei.value) and "single-byte" in str(ei.value)


def test_e11_unformable_token(tmp_path):
    data = b"\n".join(BASE_LINES[:256] + [_line(b"abc", 256), _line(b"cd", 257)]) + b"\n"
    p = _write(tmp_path, data)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            tokenmill.Encoding("unformable", PAT, tokenmill.load_tiktoken_bpe(p))
        except VocabFormatError as e:
            assert "abc" in str(e) and "256" in str(e)
            return
    assert any("abc" in str(x.message) and "256" in str(x.message) for x in w), "no error and no warning"


def test_e12_crlf_accepted(tmp_path):
    p = _write(tmp_path, VALID.replace(b"\n", b"\r\n"))
    assert tokenmill.load_tiktoken_bpe(p) == VALID_RANKS


def test_e12_crlf_hash_mismatch_mentions_line_endings(tmp_path, shared_data):
    src = shared_data / "tiktoken" / "r50k_base.tiktoken"
    p = _write(tmp_path, src.read_bytes().replace(b"\n", b"\r\n"), "r50k_crlf.tiktoken")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_tiktoken_bpe(p, expected_hash=_FILES["r50k_base.tiktoken"])
    msg = str(ei.value)
    assert "sha256" in msg and "CRLF" in msg and str(p) in msg
    # without a hash, the CRLF copy loads to the same ranks
    assert tokenmill.load_tiktoken_bpe(p) == tokenmill.load_tiktoken_bpe(src)


def test_e13_bom_stripped(tmp_path):
    p = _write(tmp_path, b"\xef\xbb\xbf" + VALID)
    assert tokenmill.load_tiktoken_bpe(p) == VALID_RANKS


def test_blank_lines_and_missing_final_newline(tmp_path):
    assert tokenmill.load_tiktoken_bpe(_write(tmp_path, VALID[:-1], "a.tiktoken")) == VALID_RANKS
    assert tokenmill.load_tiktoken_bpe(_write(tmp_path, VALID + b"\n\n", "b.tiktoken")) == VALID_RANKS


def test_e17_special_collides_with_rank():
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.Encoding("collide", PAT, dict(VALID_RANKS), special_tokens={"<|x|>": 5})
    assert "5" in str(ei.value) and "<|x|>" in str(ei.value)
    with pytest.raises(VocabFormatError):
        tokenmill.Encoding("collide2", PAT, dict(VALID_RANKS), special_tokens={"<|x|>": 257})


def test_special_aliases_share_an_id():
    """Two special texts may share an id (tiktoken's o200k_harmony does): both encode to it and
    decoding gives the first one listed."""
    import tiktoken

    specials = {"<|x|>": 300, "<|y|>": 300, "<|z|>": 301}
    enc = tokenmill.Encoding("alias", PAT, dict(VALID_RANKS), special_tokens=dict(specials))
    ref = tiktoken.Encoding("alias", pat_str=PAT, mergeable_ranks=dict(VALID_RANKS), special_tokens=dict(specials))
    text = "a<|x|>b<|y|><|z|>"
    assert enc.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all") == [97, 300, 98, 300, 301]
    assert enc.decode_single_token_bytes(300) == b"<|x|>"
    assert enc.special_tokens_set == {"<|x|>", "<|y|>", "<|z|>"}
    assert enc.n_vocab == ref.n_vocab == 302


def test_e18_urls_are_not_fetched(tmp_path):
    for url in ["https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken", "file:///etc/passwd", "http://127.0.0.1:9/x"]:
        with pytest.raises((OSError, ValueError)):
            tokenmill.load_tiktoken_bpe(url)


def test_missing_file_is_oserror(tmp_path):
    with pytest.raises(OSError):
        tokenmill.load_tiktoken_bpe(tmp_path / "nope.tiktoken")


def test_error_pickles(tmp_path):
    import pickle

    p = _write(tmp_path, _with_last(b"!!!! 257"))
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_tiktoken_bpe(p)
    e2 = pickle.loads(pickle.dumps(ei.value))
    assert str(e2) == str(ei.value) and e2.line == 258 and e2.path == str(p)


# --------------------------------------------------------------------------- shipped files


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_files_equal_tiktoken_loader(shared_data, name):
    path = shared_data / "tiktoken" / f"{name}.tiktoken"
    expected = tkload.load_tiktoken_bpe(str(path))
    gaps = name == "p50k_base"
    got = tokenmill.load_tiktoken_bpe(path, expected_hash=_FILES[f"{name}.tiktoken"], allow_gaps=gaps)
    assert got == expected


def test_p50k_needs_allow_gaps(shared_data):
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_tiktoken_bpe(shared_data / "tiktoken" / "p50k_base.tiktoken")
    assert ei.value.line is not None and "allow_gaps" in str(ei.value)


@pytest.mark.parametrize("name", SHIPPED)
def test_dump_roundtrip_byte_identical(tmp_path, shared_data, name):
    path = shared_data / "tiktoken" / f"{name}.tiktoken"
    ranks = tokenmill.load_tiktoken_bpe(path, allow_gaps=True)
    out = tmp_path / f"{name}.out.tiktoken"
    tokenmill.dump_tiktoken_bpe(ranks, out)
    assert out.read_bytes() == path.read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # atomic write leaves no temp file


def test_dump_rejects_bad_entries(tmp_path):
    for bad in ({"a": 1}, {b"a": -1}, {b"a": 2**32}, {b"a": "1"}):
        with pytest.raises(VocabFormatError):
            tokenmill.dump_tiktoken_bpe(bad, tmp_path / "x.tiktoken")
    assert not (tmp_path / "x.tiktoken").exists()


def test_shipped_package_files_match_shared_data(shared_data):
    from importlib import resources

    for name in SHIPPED:
        pkg = resources.files("tokenmill") / "encodings" / f"{name}.tiktoken"
        assert pkg.read_bytes() == (shared_data / "tiktoken" / f"{name}.tiktoken").read_bytes()


@pytest.mark.parametrize("name", SHIPPED)
def test_sha256_corrupted_copy(tmp_path, shared_data, name):
    src = shared_data / "tiktoken" / f"{name}.tiktoken"
    data = bytearray(src.read_bytes())
    data[len(data) // 2] ^= 0x01  # flip one bit in the middle
    p = tmp_path / f"{name}.tiktoken"
    p.write_bytes(bytes(data))
    expected = _FILES[f"{name}.tiktoken"]
    assert hashlib.sha256(src.read_bytes()).hexdigest() == expected
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_tiktoken_bpe(p, expected_hash=expected)
    msg = str(ei.value)
    assert "sha256" in msg and expected in msg and str(p) in msg
    with pytest.raises(VocabFormatError, match="sha256"):
        read_verified(p, expected)
    # truncated copy too
    p.write_bytes(src.read_bytes()[:1000])
    with pytest.raises(VocabFormatError, match="sha256"):
        tokenmill.load_tiktoken_bpe(p, expected_hash=expected)


# --------------------------------------------------------------------------- GPT-2 files (H1-H10)


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's encoder.py table, written independently of tokenmill."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) + list(range(ord("\u00ae"), ord("\u00ff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


B2U = bytes_to_unicode()
BYTE_ORDER = list(B2U)  # rank order of the single bytes


def _sym(b: bytes) -> str:
    return "".join(B2U[x] for x in b)


# merges over GPT-2 symbols: "Ġ" is the space byte; includes '#' merges like GPT-2's own "# #"
MERGES = [(b" ", b"t"), (b"h", b"e"), (b" t", b"he"), (b"#", b"#"), (b"##", b"##"), (b"a", b"b"), (b"ab", b"c")]


def _gpt2_files(tmp_path, merges=MERGES, header=True, final_newline=True, newline="\n", specials=None, encoder_override=None, extra_lines=()):
    ranks = {bytes([b]): i for i, b in enumerate(BYTE_ORDER)}
    for a, b in merges:
        ranks[a + b] = len(ranks)
    encoder = {_sym(k): v for k, v in ranks.items()}
    if specials is None:
        specials = {"<|endoftext|>": len(ranks)}
    encoder.update(specials)
    if encoder_override is not None:
        encoder = encoder_override(encoder)
    lines = (["#version: 0.2"] if header else []) + [f"{_sym(a)} {_sym(b)}" for a, b in merges] + list(extra_lines)
    text = newline.join(lines) + (newline if final_newline else "")
    vb = tmp_path / "vocab.bpe"
    ej = tmp_path / "encoder.json"
    vb.write_bytes(text.encode("utf-8"))
    ej.write_text(json.dumps(encoder), encoding="utf-8")
    return ej, vb, ranks, specials


def test_h_reference_matches_tiktoken(tmp_path):
    peers.prefill_tiktoken_cache()
    ej, vb, ranks, _ = _gpt2_files(tmp_path, merges=[m for m in MERGES if b"#" not in m[0]])
    assert tkload.data_gym_to_mergeable_bpe_ranks(str(vb), str(ej)) == ranks


def test_h_basic_and_specials(tmp_path):
    ej, vb, ranks, specials = _gpt2_files(tmp_path, merges=[m for m in MERGES if b"#" not in m[0]])
    got_ranks, got_specials = tokenmill.load_gpt2_files(ej, vb)
    assert got_ranks == ranks and got_specials == specials
    enc = tokenmill.Encoding.from_gpt2_files(ej, vb)
    assert enc.encode(" the abc") == [ranks[b" the"], ranks[b" "], ranks[b"abc"]]
    assert enc.encode("<|endoftext|>", allowed_special="all") == [specials["<|endoftext|>"]]


def test_h_hash_merges_are_merges(tmp_path):
    # regression: every line starting with '#' used to be skipped as a comment
    ej, vb, ranks, _ = _gpt2_files(tmp_path)
    got, _ = tokenmill.load_gpt2_files(ej, vb)
    assert got == ranks


def test_h_real_gpt2_files(shared_data):
    ranks, specials = tokenmill.load_gpt2_files(shared_data / "gpt2" / "encoder.json", shared_data / "gpt2" / "vocab.bpe")
    assert ranks == peers.tiktoken_encoding("gpt2")._mergeable_ranks
    assert specials == {"<|endoftext|>": 50256}


NO_HASH = [m for m in MERGES if b"#" not in m[0]]


@pytest.mark.parametrize(
    "variant",
    [
        {"final_newline": False},  # H1
        {"header": False},  # H2
        {"header": False, "final_newline": False},
        {"newline": "\r\n"},  # H3
        {"extra_lines": ["", "", ""]},  # H4 trailing blank lines
        {"extra_lines": ["   "]},
    ],
    ids=["H1-no-final-newline", "H2-no-header", "H1H2", "H3-crlf", "H4-blank-lines", "H4-space-line"],
)
def test_h1_h4_layout_variants(tmp_path, variant):
    ej, vb, ranks, specials = _gpt2_files(tmp_path, merges=NO_HASH, **variant)
    got_ranks, got_specials = tokenmill.load_gpt2_files(ej, vb)
    assert got_ranks == ranks
    assert got_specials == specials


@pytest.mark.parametrize("bad_line", ["Ġt", "Ġ t h", "Ġ  t"], ids=["one-field", "three-fields", "two-spaces"])
def test_h5_bad_merge_line(tmp_path, bad_line):
    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH)
    lines = vb.read_text(encoding="utf-8").split("\n")
    lines.insert(3, bad_line)  # line 4 of the file
    vb.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    e = ei.value
    assert e.line == 4 and str(vb) in str(e) and "two symbols" in str(e)


def test_h6_files_disagree_swapped(tmp_path):
    def swap(enc):
        a, b = _sym(b" t"), _sym(b"he")
        enc[a], enc[b] = enc[b], enc[a]
        return enc

    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH, encoder_override=swap)
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    msg = str(ei.value)
    assert "disagree" in msg and str(ej) in msg
    assert "\u0120t" in msg  # the GPT-2 symbol of the first mismatching token ('Ġt')


def test_h6_files_disagree_dropped(tmp_path):
    def drop(enc):
        del enc[_sym(b"ab")]
        return enc

    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH, encoder_override=drop)
    with pytest.raises(VocabFormatError, match="disagree"):
        tokenmill.load_gpt2_files(ej, vb)

    def extra(enc):
        enc[_sym(b"zz")] = 999
        return enc

    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH, encoder_override=extra)
    with pytest.raises(VocabFormatError, match="vocab.bpe does not produce"):
        tokenmill.load_gpt2_files(ej, vb)


def test_h7_encoder_json_shape(tmp_path):
    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH)
    good = ej.read_text(encoding="utf-8")
    for text, word in [
        ("[1, 2, 3]", "JSON object"),
        ('{"a": "1"}', "not an int"),
        ('{"a": 1.5}', "not an int"),
        ('{"a": true}', "not an int"),
        ("{not json", "invalid JSON"),
        (good[:-1] + ', "!": 0}', "duplicate key"),
    ]:
        ej.write_text(text, encoding="utf-8")
        with pytest.raises(VocabFormatError) as ei:
            tokenmill.load_gpt2_files(ej, vb)
        assert word in str(ei.value) and str(ej) in str(ei.value), (text, str(ei.value))


def test_h8_symbol_outside_table(tmp_path):
    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH)
    with open(vb, "a", encoding="utf-8") as f:
        f.write("\u4e2d t\n")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    assert "U+4E2D" in str(ei.value) and "GPT-2 byte symbol" in str(ei.value) and str(vb) in str(ei.value)
    assert ei.value.line == len(NO_HASH) + 2
    # the same in encoder.json
    ej2, vb2, _, _ = _gpt2_files(tmp_path, merges=NO_HASH, encoder_override=lambda e: e | {" x": 5000})
    with pytest.raises(VocabFormatError, match="U\\+0020"):
        tokenmill.load_gpt2_files(ej2, vb2)


@pytest.mark.parametrize(
    "specials",
    [{}, {"<|endoftext|>": 263}, {"<|endoftext|>": 300}, {"<|endoftext|>": 263, "<|startoftext|>": 264}],
    ids=["absent", "present", "other-id", "with-startoftext"],
)
def test_h9_endoftext(tmp_path, specials):
    ej, vb, ranks, _ = _gpt2_files(tmp_path, merges=NO_HASH, specials=specials)
    got_ranks, got_specials = tokenmill.load_gpt2_files(ej, vb)
    assert got_ranks == ranks and got_specials == specials
    enc = tokenmill.Encoding.from_gpt2_files(ej, vb)
    assert enc.special_tokens_set == set(specials)
    for s, i in specials.items():
        assert enc.encode(s, allowed_special="all") == [i]


def test_h10_empty_and_non_utf8(tmp_path):
    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH)
    good_vb, good_ej = vb.read_bytes(), ej.read_bytes()
    vb.write_bytes(b"")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    assert str(vb) in str(ei.value) and "empty" in str(ei.value)
    vb.write_bytes(good_vb)
    ej.write_bytes(b"")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    assert str(ej) in str(ei.value) and "empty" in str(ei.value)
    ej.write_bytes(good_ej)
    vb.write_bytes(good_vb + b"caf\xe9 x\n")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    assert str(vb) in str(ei.value) and "UTF-8" in str(ei.value) and "byte" in str(ei.value)
    vb.write_bytes(good_vb)
    ej.write_bytes(b'{"\xff": 1}')
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    assert str(ej) in str(ei.value)


def test_h_duplicate_merge(tmp_path):
    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH)
    with open(vb, "a", encoding="utf-8") as f:
        f.write("a b\n")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    assert ei.value.line == len(NO_HASH) + 2


def test_h_copy_of_real_files_needs_both(tmp_path, shared_data):
    # a missing file is an OSError naming it
    shutil.copy(shared_data / "gpt2" / "encoder.json", tmp_path / "encoder.json")
    with pytest.raises(OSError):
        tokenmill.load_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe")


def test_registry_verifies_sha256(monkeypatch):
    """get_encoding checks the shipped file's sha256 on every (uncached) load."""
    import tokenmill.registry as reg

    bad = dict(reg._FILES)
    bad["r50k_base.tiktoken"] = "0" * 64
    monkeypatch.setattr(reg, "_FILES", bad)
    monkeypatch.setattr(reg, "_cache", {})
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.get_encoding("r50k_base")
    assert "sha256" in str(ei.value) and "r50k_base.tiktoken" in str(ei.value)
    monkeypatch.undo()
    assert tokenmill.get_encoding("r50k_base").encode("hello world") == [31373, 995]


def test_h_line_numbers_only_count_newlines(tmp_path):
    ej, vb, _, _ = _gpt2_files(tmp_path, merges=NO_HASH)
    lines = vb.read_text(encoding="utf-8").split("\n")
    lines.insert(2, "\u2028")  # line 3: not a GPT-2 symbol, not a line break in the file format
    lines.insert(5, "bad line here")  # line 6
    vb.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.load_gpt2_files(ej, vb)
    assert ei.value.line == 3, str(ei.value)
