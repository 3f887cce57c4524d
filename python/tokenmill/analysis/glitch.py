"""Glitch-token indicators: how often a reference corpus produces each token, a merge-chain
ranking of the tokens it never produces, and Land and Bartolo's embedding indicator.

Under-trained ("glitch") tokens are in a vocabulary but were (nearly) absent from the model's
training data, so the model never learned their embeddings: GPT-2's ``" SolidGoldMagikarp"``
(id 43453) is the famous one. The tokenizer was trained on other text than the model (Reddit
threads counting to a million, web-shop boilerplate, code), so strings that were frequent
there got tokens that the model then rarely saw. See S. Land and M. Bartolo, "Fishing for
Magikarp: Automatically Detecting Under-trained Tokens in Large Language Models" (EMNLP
2024, arXiv:2405.05417; code: github.com/cohere-ai/magikarp).

Three indicators, each a list of candidates to test in the model, never proof:

* **Reference counts** (`count_tokens`): how often encoding a corpus produces each id. The
  bundled corpus (`reference_corpus`, 4.4 MB of text: English fiction, a technical handbook
  in English, French, Japanese and Chinese, Python code and JSON; see
  ``samples/reference/README.md``) or the caller's files. A token the corpus never produces
  is only a candidate: a small or narrow corpus leaves most rare words, names and scripts
  at zero, so the count filters and the ranking below orders.
* **Merge-chain score** (`merge_parents`, `rank_candidates`; tokenmill's own indicator,
  from the tokenizer alone, not from the paper): for a BPE vocabulary (ids in merge order),
  the last merge that builds token T joins two older tokens; call the younger one P (single
  bytes or characters are base symbols, older than every merge, whatever their ids). BPE merge counts fall roughly as 1/rank (Zipf), so ``1 - id(P) / id(T)`` estimates
  the share of P's occurrences in the tokenizer's training data that were *not* inside T.
  Near 0, P hardly ever occurred outside T: T is a string that data repeated verbatim (a
  username, an identifier, boilerplate), the signature of GPT-2's glitch tokens (``"
  TheNitrome"`` -> ``" TheNitromeFan"`` are ids 42089 and 42090). The score is that share
  divided by T's length in bytes (long verbatim strings first); lower is more suspicious.
  With the bundled corpus ``" SolidGoldMagikarp"`` ranks about 60th of GPT-2's ~30,000
  unseen tokens, behind the other known glitch tokens and fragments such as ``"irlfriend"``;
  cl100k_base's list opens with ``" ForCanBeConvertedToForeach"``, o200k_base's with Thai and
  Chinese spam phrases. Limits: natural words whose last piece occurs nowhere else (``" conducive"``) score low
  too; a vocabulary whose ids are not a merge order (WordPiece, Unigram) falls back to
  ranking by length, which says little.
* **Embedding distance** (`embedding_distances`): Land and Bartolo's indicator. From a
  (vocab, dim) embedding matrix, remove the first principal component (a direction shared
  by all rows that otherwise dominates cosine similarity), take the mean of rows of tokens
  known to be unused (`inspect` picks: rows past the tokenizer's vocabulary, else tokens
  that can never be input, else tokens the corpus never produced), and rank every token by
  cosine distance to that mean: closest first. Each candidate also carries its row's L2
  norm, the paper's indicator for untied input embeddings (small is suspicious). Limits: the reference set decides the
  answer (never-seen tokens of a small corpus are half the vocabulary and a blurry mean);
  weight decay, tied input and output embeddings and biases change what the rows mean.

What this module does not do: run a model, decide what is a glitch, or read the tokenizer's
round-trip categories (`tokenmill.analysis.inspect` does and passes its results in).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._progress import human_bytes
from ..data.chunks import cuttable_by, safe_cut
from ..errors import CorpusError, CorpusFileNotFoundError, InputError
from ..tokenizer import Tokenizer
from ..viz.show import GZIP_ERRORS, open_input
from ..viz.tokens import encode_options, for_viewing

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["reference_corpus", "count_tokens", "merge_parents", "rank_candidates", "load_embeddings", "embedding_distances"]

#: Read size of corpus files; a piece is encoded at a time, so memory stays near this size.
CHUNK_SIZE = 4 << 20
# Progress notes on a long corpus: one per this many bytes read.
_NOTE_EVERY = 256 << 20
# Vocabularies whose ids are a merge order: at least this share of sampled multi-symbol
# tokens splits into two lower-id tokens by BPE (a WordPiece or Unigram vocabulary does not).
_MERGE_ORDER_SHARE = 0.9


def reference_corpus() -> list[Path]:
    """The bundled reference texts (``samples/reference/*.gz`` and ``the-verdict.txt``).

    >>> sorted(p.name for p in reference_corpus())[:2]
    ['debian-handbook.en.txt.gz', 'debian-handbook.fr-ja-zh.txt.gz']
    """
    base = resources.files("tokenmill") / "samples"
    paths = sorted(Path(str(p)) for p in (base / "reference").iterdir() if p.name.endswith(".gz"))
    return paths + [Path(str(base / "the-verdict.txt"))]


# ------------------------------------------------------------------------ reference counts
def _cut(text: str, safe: bool) -> int:
    """Where to end a piece of `text` (0: nowhere yet): at the last `safe_cut` point when the
    tokenizer has them (the counts are then exactly the whole file's), else after the last
    line break."""
    if safe:
        return max(safe_cut(text), 0)
    return text.rfind("\n") + 1


def _pieces(path: Path, chunk_size: int, progress: Callable[[str], None] | None, safe: bool = False) -> Iterator[tuple[str, int]]:
    """(text, bytes read so far) of a UTF-8 file (plain or gzip) in pieces of about
    `chunk_size` characters, cut where `_cut` says; a piece that reaches `chunk_size` without
    such a point is cut where it ends (that cut may change the tokens next to it; memory must
    stay bounded)."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    offset = 0
    pending = ""
    try:
        with open_input(path) as f:
            while True:
                raw = f.read(chunk_size)
                if not raw:
                    break
                nul = raw.find(b"\0")
                if nul >= 0:
                    raise CorpusError("holds NUL bytes: a binary file, not text; give UTF-8 text files (plain or .gz)", str(path), offset=offset + nul)
                try:
                    text = pending + decoder.decode(raw)
                except UnicodeDecodeError as e:
                    # e.start counts from the decoder's held-back bytes, which precede `raw`.
                    raise CorpusError(f"not UTF-8 text ({e.reason}); give UTF-8 text files (plain or .gz)", str(path),
                                      offset=max(offset + e.start - len(decoder.getstate()[0]), 0)) from None
                before = offset // _NOTE_EVERY
                offset += len(raw)
                if progress is not None and offset // _NOTE_EVERY > before:
                    progress(f"{path.name}: {human_bytes(offset)} read")
                cut = _cut(text, safe)
                if cut == 0:
                    if len(text) < chunk_size:  # no cut point yet: wait for one, up to one chunk
                        pending = text
                        continue
                    cut = len(text)
                pending = text[cut:]
                yield text[:cut], offset
            held = len(decoder.getstate()[0])
            try:
                pending += decoder.decode(b"", final=True)
            except UnicodeDecodeError as e:
                raise CorpusError(f"not UTF-8 text ({e.reason} at the end of the file)", str(path),
                                  offset=offset - held + e.start) from None
    except FileNotFoundError:
        raise CorpusFileNotFoundError("no such file", str(path)) from None
    except GZIP_ERRORS as e:
        raise CorpusError(f"not a readable gzip file ({e}): it is truncated or corrupt; give UTF-8 text files (plain or .gz)",
                          str(path)) from None
    except IsADirectoryError:
        raise CorpusError("is a directory; give the text files in it", str(path)) from None
    except PermissionError as e:
        raise CorpusError(f"cannot be read ({e.strerror})", str(path)) from None
    if pending:
        yield pending, offset


def accepts(fn: Callable[..., Any], keyword: str) -> bool:
    """Whether the Python function or method `fn` takes the argument `keyword`
    (``add_special_tokens`` exists only for the families that add template tokens). Read
    from its code object: the `inspect` module would cost the CLI's start-up 15 ms.

    >>> import tokenmill
    >>> accepts(tokenmill.get_encoding("gpt2").encode, "add_special_tokens")
    False
    """
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return code is not None and keyword in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]


def count_tokens(tok: Tokenizer, files: Iterable[str | Path] | None = None, *, chunk_size: int = CHUNK_SIZE,
                 progress: Callable[[str], None] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """How often each id occurs when the files are encoded as ordinary text.

    Files are read in pieces (memory stays near `chunk_size` whatever their size), plain or
    gzip, and must be UTF-8 text: a binary or non-UTF-8 file is a `CorpusError` naming it.
    Special-token text is ordinary text and no template tokens (``[CLS]``) are added. For the
    OpenAI patterns (`tokenmill.data.chunks.cuttable_by`) pieces end only at points where
    cutting changes no token, so the counts are the whole files' counts (unless a piece of
    `chunk_size` has no such point); other tokenizers' pieces end after a line break.

    Args:
        tok: the tokenizer.
        files: text files; None reads the bundled `reference_corpus`.
        chunk_size: bytes read at a time.
        progress: called with a short note before the corpus (before each file given) and
            every 256 MB read.

    Returns:
        ``(counts, info)``: an int64 array of length ``tok.vocab_size`` and ``{"files": [names],
        "bytes": bytes of text read (uncompressed), "tokens": ids counted}``.

    >>> import tokenmill
    >>> counts, info = count_tokens(tokenmill.get_encoding("gpt2"))
    >>> int(counts[262]) > 10_000, info["files"][-1]   # " the"
    (True, 'the-verdict.txt')
    """
    import numpy as np  # heavy; only counting and ranking need it

    bundled = files is None
    paths = reference_corpus() if bundled else [Path(f) for f in files]  # type: ignore[union-attr]
    if not paths:
        raise InputError("no corpus files given; pass text files, or None for the bundled reference corpus")
    tok = for_viewing(tok)
    n = tok.vocab_size
    opts = encode_options(False)
    safe = cuttable_by(getattr(tok, "pretokenizer", ""), tok.special_tokens)
    if accepts(tok.encode, "add_special_tokens"):
        opts["add_special_tokens"] = False
    counts = np.zeros(n, dtype=np.int64)
    total_bytes = total_tokens = 0
    if progress is not None and bundled:
        progress(f"counting tokens of the bundled reference corpus ({len(paths)} files, "
                 f"{human_bytes(sum(p.stat().st_size for p in paths))} on disk)")
    for path in paths:
        if progress is not None and not bundled:
            size = path.stat().st_size if path.is_file() else 0
            progress(f"counting tokens of {path} ({human_bytes(size)})")
        read = 0
        for text, read in _pieces(path, chunk_size, progress, safe):
            ids = tok.encode_to_numpy(text, **opts)
            counts += np.bincount(ids, minlength=n)[:n]
            total_tokens += len(ids)
        total_bytes += read
    return counts, {"files": [p.name if bundled else str(p) for p in paths], "bytes": total_bytes, "tokens": total_tokens}


# ------------------------------------------------------------------------ merge-chain ranking
_FAR = 1 << 62  # "no merge": above every id


def _younger_parent(token: bytes | str, rank: int, ranks: Mapping[Any, int]) -> int | None:
    """Id of the younger of the two tokens that byte-pair merging with ids below `rank`
    leaves of `token` (its last merge); -1 when both are single symbols (a single symbol is
    a base symbol, older than every merge, whatever its id: SentencePiece puts its characters
    last); None when `token` cannot be built that way."""
    n = len(token)
    if n == 2:
        return -1
    parts: list[Any] = [token[i : i + 1] for i in range(n)]  # all bytes or all str
    get = ranks.get
    # pair[i]: id of parts[i] + parts[i + 1] when below `rank`; updated next to each merge only.
    pair = []
    for i in range(n - 1):
        r = get(parts[i] + parts[i + 1], _FAR)
        pair.append(r if r < rank else _FAR)
    while len(parts) > 2:
        best = min(pair)
        if best == _FAR:
            return None
        i = pair.index(best)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
        del pair[i]
        if i > 0:
            r = get(parts[i - 1] + parts[i], _FAR)
            pair[i - 1] = r if r < rank else _FAR
        if i < len(parts) - 1:
            r = get(parts[i] + parts[i + 1], _FAR)
            pair[i] = r if r < rank else _FAR
    ages = []
    for part in parts:
        age = get(part)
        if age is None and len(part) > 1:
            return None
        ages.append(-1 if len(part) == 1 or age is None else age)
    return max(ages)


def merge_parents(tokens: Mapping[int, bytes | str], ids: Iterable[int] | None = None) -> dict[int, int] | None:
    """The younger parent of each token, for a vocabulary whose ids are a BPE merge order.

    Args:
        tokens: ``{id: token}``, bytes for byte-level vocabularies (split into bytes) or
            vocabulary strings (split into characters); special tokens left out.
        ids: the ids wanted (default all of `tokens`).

    Returns:
        ``{id: parent id}`` for the wanted tokens that split into two lower-id tokens (-1
        when both are single symbols), or None when the ids are not a merge order (fewer than 90% of a sample of multi-symbol
        tokens split so: WordPiece, Unigram, hand-made vocabularies).

    >>> merge_parents({0: b"a", 1: b"b", 2: b"ab", 3: b"abb"})
    {2: -1, 3: 2}
    """
    ranks = {t: i for i, t in tokens.items()}
    multi = sorted(i for i, t in tokens.items() if len(t) > 1)
    if not multi:
        return None
    sample = multi[:: max(len(multi) // 2000, 1)]
    ok = sum(_younger_parent(tokens[i], i, ranks) is not None for i in sample)
    if ok < _MERGE_ORDER_SHARE * len(sample):
        return None
    out = {}
    for i in multi if ids is None else sorted(ids):
        t = tokens.get(i)
        if t is not None and len(t) > 1:
            p = _younger_parent(t, i, ranks)
            if p is not None:
                out[i] = p
    return out


def rank_candidates(tokens: Mapping[int, bytes | str], lengths: Mapping[int, int], counts: Sequence[int] | np.ndarray,
                    eligible: Iterable[int], *, max_count: int = 0) -> tuple[list[dict[str, Any]], str]:
    """Eligible tokens counted at most `max_count` times, most suspicious first.

    Args:
        tokens: ``{id: token}`` as for `merge_parents` (ordinary tokens only).
        lengths: ``{id: length in bytes}``.
        counts: reference counts by id (`count_tokens`).
        eligible: ids that may be candidates (reachable, non-special: `inspect` decides).
        max_count: the largest count that still makes a candidate.

    Returns:
        ``(candidates, ranking)``: ``[{"id", "count", "score", "parent"}]`` sorted by score
        (lower first; ``parent`` is None without a merge order) and ``"merge-chain"`` or
        ``"length"`` (no merge order: longest first, a weak order).

    >>> toks = {0: b"a", 1: b"b", 2: b"ab", 3: b"abb", 4: b"ba"}
    >>> [c["id"] for c in rank_candidates(toks, {i: len(t) for i, t in toks.items()}, [5, 5, 0, 0, 0], range(5))[0]]
    [3, 2, 4]
    """
    counted = counts.tolist() if hasattr(counts, "tolist") else list(counts)  # numpy scalars are slow one by one
    cand = [i for i in eligible if counted[i] <= max_count and i in tokens]
    parents = merge_parents(tokens, cand)
    rows = []
    for i in cand:
        n = max(lengths.get(i, 1), 1)
        parent = None if parents is None else parents.get(i)
        if parent is not None and parent < 0:
            parent = None
        if parents is None:
            score = 1.0 / n
        else:
            # Share of the younger parent's uses outside this token (1 without one), per byte.
            score = (1.0 - parent / i if parent is not None else 1.0) / n
        rows.append((score, counted[i], i, parent))
    rows.sort()
    out = [{"id": i, "count": c, "score": score, "parent": parent} for score, c, i, parent in rows]
    return out, "length" if parents is None else "merge-chain"


# ------------------------------------------------------------------------ embeddings
def load_embeddings(source: str | Path | Any, vocab_size: int) -> np.ndarray:
    """A (rows, dim) float matrix from a ``.npy`` file (memory-mapped) or an array, checked.

    Rows past `vocab_size` are allowed (models pad their embedding matrix; those rows were
    never trained and are the best reference of unused tokens).

    Args:
        source: a ``.npy`` path or a numpy array.
        vocab_size: the tokenizer's ``vocab_size``.

    Returns:
        The matrix (a memory map for files: nothing is read yet).

    >>> import numpy as np
    >>> load_embeddings(np.zeros((10, 4), np.float32), 12)
    Traceback (most recent call last):
    ...
    tokenmill.errors.InputError: the embedding matrix has 10 rows but the tokenizer has 12 ids; give the (vocab, dim) input or output embedding matrix of the model that uses this tokenizer
    """
    import numpy as np

    if isinstance(source, (str, Path)):
        path = str(source)
        try:
            with open(path, "rb") as f:
                magic = f.read(6)
            if magic != b"\x93NUMPY":  # numpy's own message would talk about pickles
                raise InputError(f"{path}: not a .npy file; save the (vocab, dim) matrix with numpy.save")
            m = np.load(path, mmap_mode="r", allow_pickle=False)
        except InputError:
            raise
        except FileNotFoundError:
            raise InputError(f"{path}: no such file; give the .npy file of the embedding matrix") from None
        except (ValueError, OSError, EOFError) as e:
            raise InputError(f"{path}: not a readable .npy array ({e}); save the matrix with numpy.save") from None
        where = f"{path}: "
    else:
        m, where = np.asarray(source), ""
    if not isinstance(m, np.ndarray) or m.dtype.kind != "f":
        kind = getattr(m, "dtype", type(m))
        raise InputError(f"{where}the embeddings must be a float array (float16, float32 or float64), not {kind}; "
                         "convert bfloat16 weights with .float() before numpy.save")
    if m.ndim != 2:
        raise InputError(f"{where}the embeddings must be a 2-D (vocab, dim) matrix, not shape {tuple(m.shape)}")
    rows, dim = m.shape
    if rows < vocab_size:
        hint = " (it looks transposed: save matrix.T)" if dim >= vocab_size else ""
        raise InputError(f"{where}the embedding matrix has {rows} rows but the tokenizer has {vocab_size} ids{hint}; "
                         "give the (vocab, dim) input or output embedding matrix of the model that uses this tokenizer")
    if dim < 2 or rows <= dim:
        raise InputError(f"{where}the embedding matrix has shape {tuple(m.shape)}: it needs more rows than columns and at least 2 columns")
    return m


def _row_chunks(rows: int, step: int = 1 << 16) -> Iterator[slice]:
    for start in range(0, rows, step):
        yield slice(start, min(start + step, rows))


def embedding_distances(matrix: Any, reference: Sequence[int], *, components: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Land and Bartolo's indicator: cosine distance of each row to the mean row of the
    `reference` tokens, after removing the first principal component(s).

    The matrix is read in blocks of rows (a memory map stays on disk); the principal
    components come from power iteration on the centred rows.

    Args:
        matrix: (rows, dim) float matrix (`load_embeddings`).
        reference: row indices of tokens known to be unused (not trained).
        components: how many leading principal components to remove.

    Returns:
        ``(distances, norms)``: float64 arrays of length rows; a small distance means "like
        the unused tokens" (under-trained), and ``norms`` are the rows' original L2 norms
        (the paper's other indicator for untied input embeddings: small is suspicious).

    >>> import numpy as np
    >>> m = np.eye(6)[:, :3] + 1.0
    >>> d, _ = embedding_distances(m, [0], components=0)
    >>> int(d.argmin()), round(float(d[1]), 3)
    (0, 0.167)
    """
    import numpy as np

    rows, dim = matrix.shape
    ref = np.asarray(sorted(set(int(i) for i in reference)), dtype=np.int64)
    if len(ref) == 0:
        raise InputError("no reference tokens for the embedding indicator; give the ids of tokens known to be unused")
    if ref[0] < 0 or ref[-1] >= rows:
        raise InputError(f"reference token ids must be rows of the matrix (0..{rows - 1})")
    mean = np.zeros(dim)
    for s in _row_chunks(rows):
        block = np.asarray(matrix[s], dtype=np.float64)
        if not np.isfinite(block).all():
            raise InputError(f"the embedding matrix holds NaN or infinite values (rows {s.start}..{s.stop - 1})")
        mean += block.sum(axis=0)
    mean /= rows
    pcs = _principal_components(matrix, mean, components)
    ref_mean = np.zeros(dim)
    for k in range(0, len(ref), 1 << 16):
        block = _without(np.asarray(matrix[ref[k : k + (1 << 16)]], dtype=np.float64), pcs)
        ref_mean += block.sum(axis=0)
    ref_mean /= len(ref)
    ref_norm = max(float(np.linalg.norm(ref_mean)), 1e-12)
    distances = np.empty(rows)
    norms = np.empty(rows)
    for s in _row_chunks(rows):
        raw = np.asarray(matrix[s], dtype=np.float64)
        norms[s] = np.linalg.norm(raw, axis=1)
        block = _without(raw, pcs)
        # Rows of zeros (some models zero unused rows) get distance 1, not a division by 0.
        distances[s] = 1.0 - block @ ref_mean / (np.maximum(np.linalg.norm(block, axis=1), 1e-12) * ref_norm)
    return distances, norms


def _without(block: np.ndarray, pcs: np.ndarray) -> np.ndarray:
    """`block` minus its projection on the (orthonormal) rows of `pcs`."""
    return block - (block @ pcs.T) @ pcs if len(pcs) else block


def _principal_components(matrix: Any, mean: np.ndarray, k: int, iterations: int = 100) -> np.ndarray:
    """The `k` leading principal directions of the rows (orthonormal, shape (k, dim)), by
    block power iteration on the centred rows: a few passes over the matrix, never the
    (dim, dim) covariance of a 100k-row matrix in one piece."""
    import numpy as np

    dim = len(mean)
    if k <= 0:
        return np.zeros((0, dim))
    rng = np.random.default_rng(0)  # a fixed start: the same matrix gives the same answer
    q, _ = np.linalg.qr(rng.standard_normal((dim, k)))
    for _ in range(iterations):
        z = np.zeros((dim, k))
        for s in _row_chunks(matrix.shape[0]):
            block = np.asarray(matrix[s], dtype=np.float64) - mean
            z += block.T @ (block @ q)
        new, _ = np.linalg.qr(z)
        # Converged when the subspace stops turning (signs of the columns may flip).
        done = np.abs(np.abs(np.sum(new * q, axis=0)) - 1.0).max() < 1e-10
        q = new
        if done:
            break
    return q.T
