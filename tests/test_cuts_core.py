"""`_core.cut_points`, `_core.last_cut` and `_core.next_cut` (the Rust cut rules, in
`tokenmill_core::pretokenize::cuts`) against a pure-Python transcription of their
specification, on random ASCII and non-ASCII text with random bounds; and the points they
return are safe: cutting there leaves every standard encoding's ids unchanged."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PATTERN_ENCODINGS, hyp_examples, tm_encoding
from tokenmill import _core
from tokenmill.errors import InputError

# ----------------------------------------------------------------------------- specification
# The pre-tokenizer's classes: whitespace is Unicode White_Space (`str.isspace` also counts
# U+001C..U+001F, which White_Space does not), a letter is \p{L} (`str.isalpha`). Every
# character of the alphabets below is classified alike by Python's Unicode data and the core's.


def _space(c: str) -> bool:
    return c.isspace() and c not in "\x1c\x1d\x1e\x1f"


def _letter(c: str) -> bool:
    return c.isalpha()


def rule_a(t: str, i: int) -> bool:
    return 2 <= i < len(t) and t[i - 1] == "\n" and not _space(t[i - 2]) and _letter(t[i])


def rule_b(t: str, i: int) -> bool:
    return 0 < i < len(t) and t[i - 1] in string.ascii_letters and t[i] in " \t\r\n"


def _clamp(i: int, n: int) -> int:
    return min(max(i, 0), n)


def ref_cut_points(t: str, start: int = 0, end: int | None = None) -> list[int]:
    n = len(t)
    start, end = _clamp(start, n), n if end is None else _clamp(end, n)
    return [i for i in range(start, end) if rule_a(t, i) or rule_b(t, i)]


def ref_last_cut(t: str, lo: int, hi: int, mode: str) -> int:
    n = len(t)
    lo, hi = _clamp(lo, n), _clamp(hi, n)
    if mode == "safe":
        points = ref_cut_points(t, lo, hi)
        return points[-1] if points else -1
    a = [i for i in range(lo, hi) if rule_a(t, i)]
    if a:
        return a[-1]
    js = [j for j in range(max(lo - 1, 0), hi - 1) if t[j] == "\n"]
    return js[-1] + 1 if js else -1


def ref_next_cut(t: str, start: int, mode: str) -> int:
    n = len(t)
    start = _clamp(start, n)
    if mode == "safe":
        points = ref_cut_points(t, start)
        return points[0] if points else -1
    js = [j for j in range(max(start - 1, 0), n - 1) if t[j] == "\n"]
    return js[0] + 1 if js else -1


# ----------------------------------------------------------------------------- strategies
ASCII = "aZq" + "09" + " \t\r\n\n\n" + ".,'!-/"
MIXED = ASCII + "éжǅ中" + "\u0301\u0308" + "😀🎉" + "٣" + "\xa0\u2028\x85\x0b" + "\x1c\x1f"
texts = st.one_of(st.text(alphabet=ASCII, max_size=60), st.text(alphabet=MIXED, max_size=60))
indices = st.one_of(st.integers(-3, 65), st.sampled_from([-(2**70), 2**70, 2**63, -(2**63) - 1]))
modes = st.sampled_from(["safe", "line"])


@settings(max_examples=hyp_examples(400), deadline=None)
@given(texts, indices, st.one_of(st.none(), indices))
def test_cut_points_match_the_specification(text, start, end):
    assert _core.cut_points(text, start, end) == ref_cut_points(text, start, end)
    assert _core.cut_points(text) == ref_cut_points(text)
    assert _core.cut_points(text, start) == ref_cut_points(text, start)


@settings(max_examples=hyp_examples(400), deadline=None)
@given(texts, indices, indices, modes)
def test_last_cut_matches_the_specification(text, lo, hi, mode):
    assert _core.last_cut(text, lo, hi, mode) == ref_last_cut(text, lo, hi, mode)


@settings(max_examples=hyp_examples(400), deadline=None)
@given(texts, indices, modes)
def test_next_cut_matches_the_specification(text, start, mode):
    assert _core.next_cut(text, start, mode) == ref_next_cut(text, start, mode)


# Long runs without points and a few points in between: the functions read long texts in
# windows (4096 characters, then doubling), and these cross window edges at random places.
FILLERS = ["1" * 5000, " " * 3000, "中" * 7000, "é" * 4500, "😀" * 2000, "\n  " * 1500]
POINTS = ["a b", "x\nY", ".\nж", "\n\n", "a\t", "Z\r\n"]
sparse_texts = st.lists(st.sampled_from(FILLERS + POINTS), max_size=8).map("".join)
sparse_indices = st.integers(-3, 40_000)


@settings(max_examples=hyp_examples(40), deadline=None)
@given(sparse_texts, sparse_indices, sparse_indices, modes, st.booleans())
def test_long_texts_match_the_specification(text, lo, hi, mode, full):
    if full:
        lo, hi = 0, len(text)
    assert _core.last_cut(text, lo, hi, mode) == ref_last_cut(text, lo, hi, mode)
    assert _core.next_cut(text, lo, mode) == ref_next_cut(text, lo, mode)
    assert _core.cut_points(text, lo, hi) == ref_cut_points(text, lo, hi)


@settings(max_examples=hyp_examples(100), deadline=None)
@given(st.text(alphabet=MIXED + "abcXYZ  ", max_size=80))
def test_safe_points_leave_the_ids_unchanged(text):
    points = _core.cut_points(text)
    bounds = [0, *points, len(text)]
    for name in PATTERN_ENCODINGS:
        enc = tm_encoding(name)
        whole = enc.encode_ordinary(text)
        parts = [t for a, b in zip(bounds, bounds[1:]) for t in enc.encode_ordinary(text[a:b])]
        assert parts == whole, (name, text, points)


def test_documented_examples():
    assert _core.cut_points("one two\nThree") == [3, 7, 8]
    assert _core.last_cut("hello world", 0, 11, "safe") == 5
    assert _core.last_cut("line one.\nLine two", 0, 18, "safe") == 14
    assert _core.last_cut("   \n\n  ", 0, 7, "safe") == -1
    assert _core.last_cut("x\n  y\nb  ", 0, 9, "line") == 6
    assert _core.last_cut("  \n  \n  ", 0, 8, "line") == 6
    assert _core.next_cut("ab\n\n", 0, "line") == 3
    # Character offsets, not bytes.
    assert _core.cut_points("中é 😀x\ny") == [5, 6]
    assert _core.next_cut("中é x", 0, "safe") == -1
    assert _core.next_cut("中é\n\nx", 1, "line") == 3


def test_bad_arguments():
    with pytest.raises(InputError, match='"safe" or "line"') as e:
        _core.last_cut("abc", 0, 3, "lines")
    assert isinstance(e.value, ValueError)
    with pytest.raises(ValueError, match='not "Safe"'):
        _core.next_cut("abc", 0, "Safe")
    with pytest.raises(TypeError):
        _core.cut_points("abc", 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _core.last_cut("abc", None, 3, "safe")  # type: ignore[arg-type]
    assert _core.cut_points("ab cd", None, None) == [2]  # None is the default, as in slicing


@pytest.mark.parametrize("fill", ["word ", "中文 ж\n"])
def test_large_text(fill):
    # About 8 MiB: offsets near either end are converted by walking from that end, and
    # ASCII text needs no conversion at all.
    text = "Start here\nnow " + fill * (1 << 20) + "x\nend. The end"
    n = len(text)
    head, tail = text[:200], text[-200:]
    for mode in ("safe", "line"):
        assert _core.last_cut(text, 0, n, mode) == ref_last_cut(tail, 0, 200, mode) + n - 200
        assert _core.last_cut(text, 0, 150, mode) == ref_last_cut(head, 0, 150, mode)
        assert _core.next_cut(text, 3, mode) == ref_next_cut(head, 3, mode)
        assert _core.next_cut(text, n - 150, mode) == ref_next_cut(tail, 50, mode) + n - 200
    assert _core.cut_points(text, n - 150) == [p + n - 200 for p in ref_cut_points(tail, 50)]
    assert _core.cut_points(text, 0, 150) == ref_cut_points(head, 0, 150)


# ----------------------------------------------------------------------------- str subclasses, lone surrogates
class _Liar(str):
    """A str whose Python-level methods lie: the functions must read its characters, not these."""

    def __getitem__(self, key):
        return "x"

    def __len__(self):
        return 1

    def __iter__(self):
        return iter("x")

    def encode(self, *args, **kwargs):
        raise AssertionError("encode was called")


@pytest.mark.parametrize("text", ["one two\nThree", "中é 😀x\ny", "1" * 5000 + "a b" + "中" * 7000 + "x\nY" + " " * 3000])
def test_str_subclass_overrides_are_ignored(text):
    liar, n = _Liar(text), len(text)
    for lo, hi in [(0, n), (1, n - 1), (0, n // 2), (n // 3, n)]:
        assert _core.cut_points(liar, lo, hi) == _core.cut_points(text, lo, hi) == ref_cut_points(text, lo, hi)
        for mode in ("safe", "line"):
            assert _core.last_cut(liar, lo, hi, mode) == ref_last_cut(text, lo, hi, mode)
            assert _core.next_cut(liar, lo, mode) == ref_next_cut(text, lo, mode)
    assert _core.cut_points(liar) == ref_cut_points(text)


def _replaced(text: str) -> str:
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)


SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d\ude00"]
surrogate_texts = st.lists(st.sampled_from(list(MIXED) + SURROGATES), max_size=40).map("".join)
long_surrogate_texts = st.lists(st.sampled_from(FILLERS + POINTS + SURROGATES + ["\ud800\nb", "a\udc00\n"]), max_size=10).map("".join)


@settings(max_examples=hyp_examples(200), deadline=None)
@given(st.one_of(surrogate_texts, long_surrogate_texts), sparse_indices, sparse_indices, modes)
def test_lone_surrogates_count_as_replacement_characters(text, lo, hi, mode):
    # Each lone surrogate is read as U+FFFD, one character for one: no error, and the answers
    # on the text are those on the text with U+FFFD in place of each surrogate.
    fixed = _replaced(text)
    assert _core.cut_points(text, lo, hi) == _core.cut_points(fixed, lo, hi) == ref_cut_points(fixed, lo, hi)
    assert _core.last_cut(text, lo, hi, mode) == ref_last_cut(fixed, lo, hi, mode)
    assert _core.next_cut(text, lo, mode) == ref_next_cut(fixed, lo, mode)
    assert _core.cut_points(_Liar(text), lo, hi) == ref_cut_points(fixed, lo, hi)


def test_lone_surrogate_examples():
    # U+FFFD is neither whitespace nor a letter: rule A holds after it, not before it.
    assert _core.cut_points("\ud800\nb") == [2]
    assert _core.cut_points("é\n\udc00") == []
    assert _core.last_cut("x\udfff\nb\ud800", 0, 5, "line") == 3
    assert _core.next_cut("\ud83d\ude00 a\n", 0, "line") == -1
