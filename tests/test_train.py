"""Byte-level BPE training: the Rust trainer against the reference, determinism, 64-bit counts,
continuing from a base, verbose output, and bad input."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenmill
from tokenmill import _core
from tokenmill._reference.bpe import bpe_merge
from tokenmill._reference.train_bpe import count_words, train_bpe_reference, train_merges
from tokenmill.patterns import resolve_pattern

from conftest import hyp_examples
from peers import shared_data

BYTES = {i: bytes([i]) for i in range(256)}


def _verdict() -> str:
    return (shared_data() / "the-verdict.txt").read_text(encoding="utf-8")


def _botchan() -> str:
    return (shared_data() / "corpus" / "botchan.txt").read_text(encoding="utf-8")


# ------------------------------------------------------------------ the merge loop vs the reference
words_st = st.dictionaries(
    st.lists(st.integers(97, 100), min_size=1, max_size=12).map(tuple), st.integers(1, 50), min_size=1, max_size=30
)


@settings(max_examples=hyp_examples(300), deadline=None)
@given(words_st, st.integers(0, 40), st.integers(0, 3), st.sampled_from([None, 0, 3]))
def test_merge_loop_matches_reference(words, n_new, min_frequency, long_word):
    # long_word=0 or 3 sends all or most words through the position-index path.
    want, want_words = train_merges(dict(words), dict(BYTES), n_new, min_frequency, 256)
    merges, new, after = _core.train_merges(
        [(list(w), c) for w, c in words.items()], list(BYTES.items()), n_new, min_frequency, 256, long_word=long_word
    )
    assert [(a, b, i) for a, b, i, _ in merges] == want
    assert after == sum(len(w) * c for w, c in want_words.items())
    assert all(tid >= 256 for tid, _ in new) and len(new) <= n_new


def test_long_random_word_trains_in_linear_time():
    # One pre-token of 2 million random letters: each merge must cost what it changes, not
    # the word's length (that would be ~4e10 steps here).
    import random
    import time

    rng = random.Random(0)
    doc = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(2_000_000))
    t = time.perf_counter()
    enc = tokenmill.train_bpe([doc], 20_000, progress=False)
    assert time.perf_counter() - t < 60
    assert enc.n_vocab == 20_000 and enc.decode(enc.encode(doc[:5000])) == doc[:5000]
    small = [doc[:3000]]
    assert tokenmill.train_bpe(small, 600, progress=False)._mergeable_ranks == train_bpe_reference(small, 344, resolve_pattern("cl100k"))


def test_merge_reuses_existing_bytes():
    # "a"+"bc" and "ab"+"c" spell the same bytes: the second merge reuses the first's id.
    words = {(97, 98): 5, (98, 99): 4, (97, 98, 99): 3, (97, 0, 98, 99): 10}
    want, _ = train_merges(dict(words), dict(BYTES), 3, 1, 256)
    merges, new, _ = _core.train_merges([(list(w), c) for w, c in words.items()], list(BYTES.items()), 3, 1, 256)
    assert [(a, b, i) for a, b, i, _ in merges] == want
    assert len({b for _, b in new}) == len(new)  # no duplicate token bytes


@settings(max_examples=hyp_examples(60), deadline=None)
@given(
    st.lists(st.text(alphabet="ab c\n1'é漢<|>", max_size=80), min_size=1, max_size=8),
    st.sampled_from(["cl100k", "gpt2", "o200k", r"\w+|\s+|[^\w\s]+"]),
    st.integers(0, 30),
)
def test_train_bpe_matches_reference(docs, pattern, n_new):
    specials = ("<|x|>",)
    want = train_bpe_reference(docs, n_new, resolve_pattern(pattern), specials)
    if not any(count_words(docs, resolve_pattern(pattern), specials)):
        with pytest.raises(tokenmill.TrainingError, match="empty"):
            tokenmill.train_bpe(docs, 256 + n_new + 1, pattern=pattern, special_tokens=specials, progress=False)
        return
    enc = tokenmill.train_bpe(docs, 256 + n_new + 1, pattern=pattern, special_tokens=specials, progress=False, num_threads=2)
    assert enc._mergeable_ranks == want
    assert enc._special_tokens == {"<|x|>": max(want.values()) + 1}


def test_real_text_matches_reference_and_round_trips():
    text = _verdict()
    want = train_bpe_reference([text], 300, resolve_pattern("cl100k"))
    enc = tokenmill.train_bpe([text], 556, progress=False)
    assert enc._mergeable_ranks == want
    assert enc.decode(enc.encode(text)) == text
    info = enc.training_info
    assert info["merges"] >= 300 and info["text_bytes"] == len(text.encode())
    assert info["bytes_per_token"] == pytest.approx(len(text.encode()) / info["tokens"])
    assert len(enc.encode_ordinary(text)) <= info["tokens"] * 1.01


def test_same_merges_for_any_thread_count():
    docs = [_botchan(), _verdict()] * 3
    a = tokenmill.train_bpe(docs, 2000, progress=False, num_threads=1)
    b = tokenmill.train_bpe(docs, 2000, progress=False, num_threads=2)
    c = tokenmill.train_bpe(["".join(docs)], 2000, progress=False, num_threads=2)
    assert a._mergeable_ranks == b._mergeable_ranks == c._mergeable_ranks


def test_counts_are_64_bit():
    counter = _core.WordCounter(resolve_pattern("cl100k"), [])
    counter.add(b"ab", 2**33)
    counter.add(b"cd", 2**33 + 1)
    counter.add(b"cd", 2**32)  # the sum is above 2**33 too
    with pytest.raises(tokenmill.errors.InputError, match="overflow"):
        counter.add(b"cd", 2**64 - 1)
    merges, new, after = _core.train_bpe_merges(counter, 2, 1, 256)
    assert merges[0] == (99, 100, 256, 2**33 + 1 + 2**32)
    assert merges[1] == (97, 98, 257, 2**33)
    assert after == 2**33 + 2**33 + 1 + 2**32
    assert len(counter) == 0  # the counts were moved into the trainer


def test_min_frequency():
    enc = tokenmill.train_bpe(["ab ab ab cd cd"], 300, progress=False, min_frequency=3)
    assert b"ab" in enc._mergeable_ranks and b"cd" not in enc._mergeable_ranks
    assert enc.n_vocab < 300  # ran out of frequent pairs


def test_specials_are_cut_out_and_get_the_last_ids():
    docs = ["hello<|endoftext|>world<|endoftext|>"] * 20
    enc = tokenmill.train_bpe(docs, 300, special_tokens=("<|endoftext|>", "<|pad|>"), progress=False)
    assert not any(b"<|" in t for t in enc._mergeable_ranks)
    assert enc._special_tokens == {"<|endoftext|>": enc.n_vocab - 2, "<|pad|>": enc.n_vocab - 1}
    assert enc.encode("hello<|endoftext|>", allowed_special="all")[-1] == enc.n_vocab - 2


# ------------------------------------------------------------------ continuing from a base
def test_base_keeps_every_id_and_adds_after():
    base = tokenmill.train_bpe([_verdict()], 400, special_tokens=("<|endoftext|>",), progress=False)
    text = _botchan()
    enc = tokenmill.train_bpe([text], 700, base=base, special_tokens=("<|sep|>",), progress=False)
    ranks, base_ranks = enc._mergeable_ranks, base._mergeable_ranks
    assert all(ranks[t] == r for t, r in base_ranks.items())
    assert enc._special_tokens == {"<|endoftext|>": 399, "<|sep|>": 699}
    assert sorted(r for t, r in ranks.items() if t not in base_ranks) == list(range(400, 699))
    assert len(enc.encode_ordinary(text)) < len(base.encode_ordinary(text))
    # The reference: words start as the base encodes them, then the same merge rule.
    counts = count_words([text], base._pat_str, ["<|endoftext|>", "<|sep|>"])
    words = {}
    for w, c in counts.items():
        key = tuple(bpe_merge(base_ranks, w))
        words[key] = words.get(key, 0) + c
    tb = {r: t for t, r in base_ranks.items()}
    train_merges(words, tb, 299, 1, 400)
    assert {t: r for r, t in tb.items()} == ranks


def test_base_standard_encoding():
    gpt2 = tokenmill.get_encoding("gpt2")
    enc = tokenmill.train_bpe(["zzyzx qwxq " * 50], gpt2.n_vocab + 3, base=gpt2, progress=False)
    assert enc.n_vocab == gpt2.n_vocab + 3
    assert enc._special_tokens == gpt2._special_tokens
    assert enc.encode("hello world") == gpt2.encode("hello world")
    with pytest.raises(tokenmill.TrainingError, match="vocab_size"):
        tokenmill.train_bpe(["x"], gpt2.n_vocab - 1, base=gpt2, progress=False)
    with pytest.raises(tokenmill.SpecialTokenError, match="already a special token"):
        tokenmill.train_bpe(["x"], gpt2.n_vocab + 5, base=gpt2, special_tokens=("<|endoftext|>",), progress=False)


# ------------------------------------------------------------------ verbose, errors, pathological
def test_verbose_logs_each_merge(capsys):
    tokenmill.train_bpe(["ee ee ee"], 258, progress=False, verbose=True)
    err = capsys.readouterr().err.splitlines()
    assert err == ["merging (101, 101) into a new token 256", "merging (32, 256) into a new token 257"]


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(vocab_size=100), tokenmill.TrainingError, "smaller than 256 byte tokens"),
        (dict(vocab_size=257, special_tokens=("<a>", "<b>")), tokenmill.TrainingError, "= 258"),
        (dict(vocab_size=300, special_tokens=("<a>", "<a>")), tokenmill.SpecialTokenError, "given twice"),
        (dict(vocab_size=300, special_tokens="<a>"), TypeError, "not a string"),
        (dict(vocab_size=300, special_tokens=("",)), tokenmill.SpecialTokenError, "non-empty"),
        (dict(vocab_size="300"), TypeError, "vocab_size"),
        (dict(vocab_size=300, min_frequency=-1), tokenmill.TrainingError, "min_frequency"),
        (dict(vocab_size=300, pattern="(unclosed"), tokenmill.PatternError, "pattern"),
        (dict(vocab_size=300, num_threads=0), ValueError, "num_threads"),
    ],
)
def test_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        tokenmill.train_bpe(["some text"], progress=False, **kwargs)


@pytest.mark.parametrize("corpus", [[], [""], ["", ""], iter([])])
def test_empty_corpus(corpus, tmp_path):
    with pytest.raises(tokenmill.TokenmillError, match="empty"):
        tokenmill.train_bpe(corpus, 300, progress=False)
    (tmp_path / "empty.txt").write_bytes(b"")
    with pytest.raises(tokenmill.TrainingError, match="corpus is empty"):
        tokenmill.train_bpe([tmp_path / "empty.txt"], 300, progress=False)


def test_only_specials_is_empty():
    with pytest.raises(tokenmill.TrainingError, match="corpus is empty"):
        tokenmill.train_bpe(["<|endoftext|>" * 3], 300, special_tokens=("<|endoftext|>",), progress=False)


def test_files_and_bad_files(tmp_path):
    (tmp_path / "a.txt").write_text(_verdict(), encoding="utf-8")
    with gzip.open(tmp_path / "b.txt.gz", "wt", encoding="utf-8") as f:
        f.write(_verdict())
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps({"text": t}) for t in _verdict().split("\n\n")), encoding="utf-8")
    a = tokenmill.train_bpe(str(tmp_path / "a.txt"), 400, progress=False)
    b = tokenmill.train_bpe([tmp_path / "b.txt.gz"], 400, progress=False)
    assert a._mergeable_ranks == b._mergeable_ranks == tokenmill.train_bpe([_verdict()], 400, progress=False)._mergeable_ranks
    tokenmill.train_bpe([tmp_path / "c.jsonl"], 400, progress=False)

    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello world " * 10 + b"\xff\xfe tail")
    with pytest.raises(tokenmill.CorpusError, match=r"bad\.txt.*120") as e:
        tokenmill.train_bpe([bad], 300, progress=False)
    assert isinstance(e.value, ValueError) and "errors=" in str(e.value)
    enc = tokenmill.train_bpe([bad], 300, progress=False, errors="replace")
    assert enc.n_vocab <= 300

    lines = tmp_path / "bad.jsonl"
    lines.write_text('{"text": "ok"}\n{"text": "ok"}\nnot json\n', encoding="utf-8")
    with pytest.raises(tokenmill.CorpusError, match=r"bad\.jsonl:3"):
        tokenmill.train_bpe([lines], 300, progress=False)
    lines.write_text('{"text": "ok"}\n{"body": "no text field"}\n', encoding="utf-8")
    with pytest.raises(tokenmill.CorpusError, match=r"bad\.jsonl:2.*text"):
        tokenmill.train_bpe([lines], 300, progress=False)


@pytest.mark.parametrize(
    "doc",
    [
        "a" * 1_000_000,
        "ab" * 300_000,
        " " * 200_000 + "x",
        "1234567890" * 50_000,
        "\x00" * 10_000 + "a\x00b",
    ],
    ids=["a-1M", "ab-600K", "spaces", "digits", "nul"],
)
def test_pathological_documents(doc):
    enc = tokenmill.train_bpe([doc], 400, progress=False)
    assert enc.decode(enc.encode(doc)) == doc


def test_lone_surrogates():
    doc = "lone \ud800 surrogate \udfff here"
    with pytest.raises(tokenmill.CorpusError, match="surrogate"):
        tokenmill.train_bpe([doc], 300, progress=False)
    enc = tokenmill.train_bpe([doc], 300, progress=False, errors="replace")
    assert enc.encode(doc) == enc.encode(doc.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd"))


def test_parquet_and_jsonl_equal_the_documents(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    docs = [p for p in _verdict().split("\n\n") if p]
    pq.write_table(pa.table({"body": docs}), tmp_path / "d.parquet")
    (tmp_path / "d.jsonl").write_text("\n".join(json.dumps({"body": d}) for d in docs), encoding="utf-8")
    want = tokenmill.train_bpe(docs, 400, progress=False)._mergeable_ranks
    assert tokenmill.train_bpe([tmp_path / "d.parquet"], 400, progress=False, text_field="body")._mergeable_ranks == want
    assert tokenmill.train_bpe([tmp_path / "d.jsonl"], 400, progress=False, text_field="body")._mergeable_ranks == want


def test_big_files_read_by_the_core_give_the_same_merges(tmp_path):
    """Files are read by the Rust reader, a big text cut into ~1 MB blocks at safe points; the
    merges equal those of the same texts passed as strings (read by no reader at all)."""
    with gzip.open(shared_data() / "corpus" / "debian-handbook.fr-FR.txt.gz", "rt", encoding="utf-8") as f:
        big = f.read(2_500_000)
    (tmp_path / "big.txt").write_bytes(big.encode("utf-8"))
    with gzip.open(tmp_path / "v.txt.gz", "wt", encoding="utf-8") as f:
        f.write(_verdict())
    want = tokenmill.train_bpe([big, _verdict()], 600, progress=False, num_threads=2)._mergeable_ranks
    got = tokenmill.train_bpe([tmp_path / "big.txt", tmp_path / "v.txt.gz"], 600, progress=False, num_threads=2)
    assert got._mergeable_ranks == want


@pytest.mark.parametrize("pattern", ["cl100k", "gpt2"])
def test_same_merges_as_rustbpe(pattern):
    # rustbpe (karpathy's nanochat trainer, an independent implementation) uses the same merge
    # rule and tie-break: on real text both must learn exactly the same vocabulary.
    import rustbpe

    docs = [_botchan(), _verdict()]
    with gzip.open(shared_data() / "corpus" / "debian-handbook.fr-FR.txt.gz", "rt", encoding="utf-8") as f:
        docs.append(f.read(600_000))
    with gzip.open(shared_data() / "corpus" / "debian-handbook.ja-JP.txt.gz", "rt", encoding="utf-8") as f:
        docs.append(f.read(200_000))
    peer = rustbpe.Tokenizer()
    peer.train_from_iterator(iter(docs), 3000, pattern=resolve_pattern(pattern))
    theirs = peer.get_mergeable_ranks()
    theirs = dict(theirs) if not isinstance(theirs, dict) else theirs
    theirs = {bytes(k): v for k, v in theirs.items()}
    mine = tokenmill.train_bpe(docs, 3000, pattern=pattern, progress=False, num_threads=2)._mergeable_ranks
    assert mine == theirs


def test_merge_loop_rejects_bad_words_and_tokens():
    tokens = list(BYTES.items())
    with pytest.raises(tokenmill.errors.InputError, match="symbol id 999"):
        _core.train_merges([([1, 999], 3)], tokens, 5)
    with pytest.raises(tokenmill.errors.InputError, match="given twice"):
        _core.train_merges([([1, 2], 3)], [(1, b"a"), (2, b"a")], 5)
    with pytest.raises(tokenmill.errors.InputError, match="given twice"):
        _core.train_merges([([1, 2], 3)], [(1, b"a"), (1, b"b")], 5)


def test_corrupt_gzip_corpus(tmp_path):
    p = tmp_path / "c.txt.gz"
    p.write_bytes(gzip.compress(b"hello world " * 100)[:40])
    with pytest.raises(tokenmill.CorpusError, match=r"c\.txt\.gz: corrupt or truncated gzip"):
        tokenmill.train_bpe(p, 300, progress=False)


def test_every_trainer_reads_files_through_the_core_reader(tmp_path):
    """Custom patterns, errors="replace", and the word, char and classic-BPE trainers read
    files with the Rust reader too; their results equal those of the same texts as strings."""
    docs = [p for p in _verdict().split("\n\n") if p]
    (tmp_path / "d.jsonl").write_text("\n".join(json.dumps({"text": d}) for d in docs), encoding="utf-8")
    (tmp_path / "v.txt").write_text(_verdict(), encoding="utf-8")
    files, texts = [tmp_path / "d.jsonl", tmp_path / "v.txt"], docs + [_verdict()]
    custom = r"\w+|[^\w\s]+|\s+"
    want = tokenmill.train_bpe(texts, 400, pattern=custom, progress=False)._mergeable_ranks
    assert tokenmill.train_bpe(files, 400, pattern=custom, progress=False)._mergeable_ranks == want
    from tokenmill.train import TRAINERS

    for model in ("word", "char", "classic-bpe"):
        size = None if model != "classic-bpe" else 300
        a = TRAINERS[model].train(texts, size)
        b = TRAINERS[model].train(files, size)
        assert a.encode(_verdict()) == b.encode(_verdict()), model


def test_invalid_utf8_files_with_errors_replace(tmp_path):
    """errors="replace" on files: U+FFFD per invalid sequence, as Python's decoder gives."""
    raw = _verdict().encode() + b"\n bad \xff\xfe bytes \xe2\x82 and \xed\xa0\x80 more\n"
    (tmp_path / "bad.txt").write_bytes(raw)
    with pytest.raises(tokenmill.CorpusError, match=r"bad\.txt: byte \d+: invalid UTF-8 \(invalid start byte: ff\)"):
        tokenmill.train_bpe([tmp_path / "bad.txt"], 300, progress=False)
    text = raw.decode("utf-8", "replace")
    want = tokenmill.train_bpe([text], 300, progress=False, pattern=r"\S+|\s+")._mergeable_ranks
    got = tokenmill.train_bpe([tmp_path / "bad.txt"], 300, progress=False, errors="replace", pattern=r"\S+|\s+")
    assert got._mergeable_ranks == want
    want = tokenmill.train_bpe([text], 300, progress=False)._mergeable_ranks
    assert tokenmill.train_bpe([tmp_path / "bad.txt"], 300, progress=False, errors="replace")._mergeable_ranks == want
