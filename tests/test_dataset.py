"""Token datasets and loaders (issue 11, the reading half): shard directories built here with numpy
exactly as ``/tmp/spec/shards.md`` (version 1) describes, windows with GPTDatasetV1 semantics,
the sampler's order and resume guarantees, and bad input.

torch is not installed in this environment (its PyPI wheels pull CUDA), so the
``torch.utils.data.DataLoader`` protocol is tested without it: ``len()``, ``ds[i]`` returning a
pair of arrays, and pickling for worker processes.
"""

from __future__ import annotations

import json
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import hyp_examples
from tokenmill.data import (
    ShardFormatError,
    TokenDataset,
    TokenSampler,
    create_dataloader,
    read_tokens,
    token_bytes,
)
from tokenmill.data.dataset import write_npy_shards
from tokenmill.errors import TokenmillError
from tokenmill.samples import sample_path


def write_megatron_shards(root: Path, shards: list[list[int]], docs: list[list[int]], dtype: str = "uint16") -> Path:
    """Megatron layout: raw .bin tokens + MMIDIDX .idx (one sequence per document)."""
    root.mkdir(parents=True, exist_ok=True)
    np_dtype = {"uint16": "<u2", "uint32": "<u4"}[dtype]
    entries, first = [], 0
    for k, (ids, starts) in enumerate(zip(shards, docs)):
        arr = np.asarray(ids, np_dtype)
        (root / f"shard_{k:06d}.bin").write_bytes(arr.tobytes())
        sizes = np.diff(np.append(starts, len(arr))).astype("<i4")
        pointers = (np.asarray(starts, "<i8") * arr.itemsize).astype("<i8")
        doc_idx = np.arange(len(sizes) + 1, dtype="<i8")
        head = b"MMIDIDX\x00\x00" + struct.pack("<QBQQ", 1, 8 if dtype == "uint16" else 4, len(sizes), len(doc_idx))
        (root / f"shard_{k:06d}.idx").write_bytes(head + sizes.tobytes() + pointers.tobytes() + doc_idx.tobytes())
        entries.append({"files": [f"shard_{k:06d}.bin", f"shard_{k:06d}.idx"], "tokens": len(arr),
                        "documents": len(sizes), "first_document": 0, "first_token": first})
        first += len(arr)
    index = {"format": "tokenmill-shards", "version": 1, "layout": "megatron", "dtype": dtype, "shards": entries, "tokens": first}
    (root / "index.json").write_text(json.dumps(index, indent=2, sort_keys=True))
    return root


def gpt_dataset_v1(ids, max_length, stride):
    """The book's GPTDatasetV1, in plain Python."""
    out = []
    for i in range(0, len(ids) - max_length, stride):
        out.append((ids[i:i + max_length], ids[i + 1:i + max_length + 1]))
    return out


# ------------------------------------------------------------------------------------ the book
def test_book_example_the_verdict():
    text = sample_path().read_text(encoding="utf-8")
    loader = create_dataloader(text, batch_size=1, max_length=4, stride=1, shuffle=False)
    it = iter(loader)
    x, y = next(it)
    assert x.tolist() == [[40, 367, 2885, 1464]] and y.tolist() == [[367, 2885, 1464, 1807]]
    assert x.dtype == np.int64 and y.dtype == np.int64
    x2, y2 = next(it)
    assert x2.tolist() == [[367, 2885, 1464, 1807]] and y2.tolist() == [[2885, 1464, 1807, 3619]]
    # The book's second example: batch_size=8, max_length=4, stride=4.
    x, y = next(iter(create_dataloader(text, batch_size=8, max_length=4, stride=4, shuffle=False)))
    assert x.shape == (8, 4) and x[1].tolist() == [1807, 3619, 402, 271]
    assert len(create_dataloader(text, batch_size=1, max_length=4, stride=1, shuffle=False)) == 5145 - 4


@pytest.mark.parametrize("n,max_length,stride", [(10, 4, 1), (10, 4, 4), (10, 4, 6), (5, 4, 1), (4, 4, 1), (0, 1, 1), (9, 1, 2)])
def test_gpt_dataset_v1_semantics(n, max_length, stride):
    ids = list(range(100, 100 + n))
    ref = gpt_dataset_v1(ids, max_length, stride)
    ds = TokenDataset(np.asarray(ids, np.uint32), max_length, stride)
    assert len(ds) == len(ref)
    for i, (x, y) in enumerate(ref):
        got = ds[i]
        assert got[0].tolist() == x and got[1].tolist() == y and got[0].dtype == np.int64
    if ref:
        assert ds[-1][0].tolist() == ref[-1][0]
        xb, yb = ds.get_batch(range(len(ds)))
        assert xb.tolist() == [x for x, _ in ref] and yb.tolist() == [y for _, y in ref]
    with pytest.raises(IndexError):
        ds[len(ds)]
    with pytest.raises(IndexError):
        ds[-len(ds) - 1]


@settings(max_examples=hyp_examples(40))
@given(st.lists(st.lists(st.integers(0, 65535), max_size=12), min_size=1, max_size=4), st.integers(1, 7),
       st.integers(1, 5), st.data())
def test_windows_property(tmp_path_factory, shards, max_length, stride, data):
    flat = [t for s in shards for t in s]
    d = write_npy_shards(tmp_path_factory.mktemp("p"), shards)
    ds = TokenDataset(d, max_length, stride)
    ref = gpt_dataset_v1(flat, max_length, stride)
    assert len(ds) == len(ref)
    if ref:
        idx = data.draw(st.lists(st.integers(-len(ref), len(ref) - 1), max_size=6))
        xb, yb = ds.get_batch(idx)
        assert xb.shape == (len(idx), max_length)
        assert xb.tolist() == [ref[i][0] for i in idx] and yb.tolist() == [ref[i][1] for i in idx]
        assert [ds[i][0].tolist() for i in idx] == [ref[i][0] for i in idx]


# ------------------------------------------------------------------------------------ shards
@pytest.mark.parametrize("dtype", ["uint16", "uint32"])
@pytest.mark.parametrize("layout", ["npy", "llmc", "megatron"])
def test_windows_span_shard_boundaries(tmp_path, dtype, layout):
    rng = np.random.default_rng(0)
    hi = 65536 if dtype == "uint16" else 2**32
    sizes = [37, 0, 5, 64, 1, 50]
    shards = [rng.integers(0, hi, n, dtype=np.int64).tolist() for n in sizes]
    docs = [[0] if n else [] for n in sizes]
    if layout == "megatron":
        d = write_megatron_shards(tmp_path, shards, docs, dtype)
    elif layout == "llmc" and dtype == "uint32":  # llm.c shards hold uint16 tokens only (as the Rust writer)
        with pytest.raises(ValueError, match="uint16 tokens only"):
            write_npy_shards(tmp_path, shards, dtype=dtype, layout=layout, doc_starts=docs)
        return
    else:
        d = write_npy_shards(tmp_path, shards, dtype=dtype, layout=layout, doc_starts=docs)
    flat = np.concatenate([np.asarray(s, np.int64) for s in shards])
    tokens = read_tokens(d)
    assert tokens.dtype == np.dtype(dtype) and tokens.tolist() == flat.tolist()
    for max_length, stride in [(8, 3), (16, 16), (1, 1), (70, 2)]:
        ds = TokenDataset(d, max_length, stride)
        assert len(ds) == len(range(0, len(flat) - max_length, stride))
        starts = np.arange(len(ds)) * stride
        want_x = np.stack([flat[s:s + max_length] for s in starts])
        want_y = np.stack([flat[s + 1:s + max_length + 1] for s in starts])
        xb, yb = ds.get_batch(np.arange(len(ds))[::-1])
        assert (xb == want_x[::-1]).all() and (yb == want_y[::-1]).all()
        for i in range(len(ds)):
            x, y = ds[i]
            assert (x == want_x[i]).all() and (y == want_y[i]).all()


def test_single_shard_is_memory_mapped(tmp_path):
    d = write_npy_shards(tmp_path, [list(range(50))])
    assert isinstance(read_tokens(d), np.memmap)
    assert isinstance(read_tokens(write_npy_shards(tmp_path / "two", [[1], [2]])), np.ndarray)
    assert read_tokens(write_npy_shards(tmp_path / "none", [])).tolist() == []


def test_bad_directories(tmp_path):
    with pytest.raises(ShardFormatError, match="no such shard directory"):
        read_tokens(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ShardFormatError, match="no index.json.*tokenmill prepare") as e:
        TokenDataset(tmp_path / "empty", 4, 1)
    assert isinstance(e.value, (TokenmillError, ValueError))

    d = write_npy_shards(tmp_path / "v", [[1, 2, 3]])
    index = json.loads((d / "index.json").read_text())
    for key, value, message in [("version", 2, "reads version 1"), ("format", "other", "not a tokenmill shard index"),
                                ("dtype", "int8", "dtype"), ("layout", "arrow", "layout"), ("tokens", 4, "the shards hold 3")]:
        (d / "index.json").write_text(json.dumps({**index, key: value}))
        with pytest.raises(ShardFormatError, match=message):
            read_tokens(d)
    (d / "index.json").write_text("{not json")
    with pytest.raises(ShardFormatError, match="not valid JSON"):
        read_tokens(d)


def test_bad_shard_files(tmp_path):
    d = write_npy_shards(tmp_path / "t", [list(range(100)), list(range(10))])
    path = d / "shard_000000.npy"
    data = path.read_bytes()
    path.write_bytes(data[:-3])
    with pytest.raises(ShardFormatError, match="shard_000000.npy: truncated") as e:
        TokenDataset(d, 4, 1)
    assert e.value.expected == len(data) and e.value.actual == len(data) - 3
    path.write_bytes(data + b"\0\0")
    with pytest.raises(ShardFormatError, match="has trailing bytes"):
        read_tokens(d)
    path.write_bytes(b"garbage")
    with pytest.raises(ShardFormatError, match="not a valid .npy file"):
        read_tokens(d)
    np.save(path, np.arange(100, dtype=np.uint32))
    with pytest.raises(ShardFormatError, match="uint16"):
        read_tokens(d)
    np.save(path, np.arange(99, dtype=np.uint16))
    with pytest.raises(ShardFormatError, match="holds 99 elements, but the index says 100"):
        read_tokens(d)
    path.unlink()
    with pytest.raises(ShardFormatError, match="shard_000000.npy: missing"):
        read_tokens(d)

    d = write_npy_shards(tmp_path / "l", [list(range(100))], layout="llmc")
    path = d / "shard_000000.bin"
    data = path.read_bytes()
    path.write_bytes(data[:1000])
    with pytest.raises(ShardFormatError, match="shorter than its 1024-byte header"):
        read_tokens(d)
    path.write_bytes(data[:-2])
    with pytest.raises(ShardFormatError, match="truncated"):
        read_tokens(d)
    path.write_bytes(struct.pack("<i", 7) + data[4:])
    with pytest.raises(ShardFormatError, match="not an llm.c token shard"):
        read_tokens(d)


def test_empty_documents_and_bad_shard_entries(tmp_path):
    # Empty documents (equal starts, or a start at the shard's end) are valid; a window starts once there.
    d = write_npy_shards(tmp_path / "e", [[1, 2, 3, 4], [5, 6]], doc_starts=[[0, 0, 2, 4], [0, 2]])
    ds = TokenDataset(d, 1, 1, align="document")
    assert [ds.start(i) for i in range(len(ds))] == [0, 2, 4]
    # A malformed entry is index.json's fault: the error names it and the entry.
    index = json.loads((d / "index.json").read_text())
    index["shards"][1]["files"] = ["x.npy", "x.docs.npy"]
    (d / "index.json").write_text(json.dumps(index))
    with pytest.raises(ShardFormatError, match=r"index\.json: shards\[1\]: .*does not name a shard") as e:
        read_tokens(d)
    assert e.value.path == str(d / "index.json")


def test_documents_layouts_agree(tmp_path):
    shards = [list(range(30)), list(range(30, 45))]
    docs = [[0, 10, 25], [0, 4]]
    a = TokenDataset(write_npy_shards(tmp_path / "a", shards, doc_starts=docs), 4, 1, align="document")
    b = TokenDataset(write_megatron_shards(tmp_path / "b", shards, docs), 4, 1, align="document")
    c = TokenDataset(write_npy_shards(tmp_path / "c", shards, doc_starts=docs, layout="llmc"), 4, 1, align="document")
    assert [a.start(i) for i in range(len(a))] == [0, 10, 25, 30, 34]
    assert [b.start(i) for i in range(len(b))] == [c.start(i) for i in range(len(c))] == [0, 10, 25, 30, 34]


# ------------------------------------------------------------------------------------ document alignment
def test_document_alignment():
    ids = np.arange(100)
    docs = [0, 3, 10, 40, 41, 42, 90, 97]
    ds = TokenDataset(ids, max_length=8, stride=8, align="document", doc_starts=docs)
    # greedy: 0, then the first start >= 8 (10), >= 18 (40), >= 48 (90); 97 leaves no whole window
    assert [ds.start(i) for i in range(len(ds))] == [0, 10, 40, 90]
    assert ds[1][0].tolist() == list(range(10, 18)) and ds.get_batch([3])[1].tolist() == [list(range(91, 99))]
    covered = 9 + 9 + 9 + 9
    assert ds.discarded_fraction == pytest.approx(1 - covered / 100)
    every = TokenDataset(ids, 8, 1, align="document", doc_starts=docs)
    assert [every.start(i) for i in range(len(every))] == [0, 3, 10, 40, 41, 42, 90]
    assert TokenDataset(ids, 10, 10).discarded_fraction == pytest.approx(1 - 91 / 100)
    with pytest.raises(ValueError, match="doc_starts"):
        TokenDataset(ids, 8, 8, align="document")
    with pytest.raises(ValueError, match="ascending"):
        TokenDataset(ids, 8, 8, align="document", doc_starts=[0, 5, 5])


# ------------------------------------------------------------------------------------ arguments
def test_bad_arguments():
    with pytest.raises(ValueError, match="max_length must be at least 1"):
        TokenDataset(np.arange(10), 0, 1)
    with pytest.raises(ValueError, match="stride must be at least 1"):
        TokenDataset(np.arange(10), 4, 0)
    with pytest.raises(TypeError):
        TokenDataset(np.arange(10), 4.5, 1)
    with pytest.raises(ValueError, match="1-D"):
        TokenDataset(np.zeros((2, 3), np.int64), 1, 1)
    with pytest.raises(ValueError, match="integer dtype"):
        TokenDataset(np.zeros(5), 1, 1)
    with pytest.raises(ValueError, match="negative"):
        TokenDataset(np.array([1, -2, 3]), 1, 1)
    ds = TokenDataset(np.arange(4), 4, 1)  # fewer than max_length + 1 tokens: empty, as GPTDatasetV1
    assert len(ds) == 0 and ds.discarded_fraction == 1.0
    with pytest.raises(IndexError):
        ds[0]
    with pytest.raises(ValueError, match="no window"):
        create_dataloader(np.arange(4), max_length=4)
    with pytest.raises(ValueError, match="fewer than batch_size"):
        create_dataloader(np.arange(10), batch_size=8, max_length=4, stride=4)
    with pytest.raises(IndexError, match="out of range"):
        TokenDataset(np.arange(10), 4, 1).get_batch([0, 6])
    with pytest.raises(ImportError, match="torch"):
        create_dataloader(np.arange(10), batch_size=1, max_length=4, as_torch=True)


def test_text_source_and_tokenizers():
    text = "Hello world. <|endoftext|> Bye."
    ds = TokenDataset(text, 2, 1)
    assert 50256 in np.concatenate([ds[i][0] for i in range(len(ds))])
    ds2 = TokenDataset(text, 2, 1, tokenizer="cl100k_base")
    assert 100257 in np.concatenate([ds2[i][0] for i in range(len(ds2))])
    import tokenmill

    ds3 = TokenDataset("abcab", 2, 1, tokenizer=tokenmill.CharLevel.train(["abc"]))
    assert ds3[0][0].tolist() == [0, 1]


def test_torch_map_style_protocol_without_torch(tmp_path):
    d = write_npy_shards(tmp_path, [list(range(40)), list(range(40, 60))])
    ds = TokenDataset(d, 5, 3)
    # What torch.utils.data.DataLoader uses: len, __getitem__ -> arrays default_collate stacks, pickling.
    items = [ds[i] for i in range(len(ds))]
    assert all(isinstance(x, np.ndarray) and x.shape == (5,) for pair in items for x in pair)
    blob = pickle.dumps(ds)
    assert len(blob) < 2000  # the directory, not the corpus
    back = pickle.loads(blob)
    assert len(back) == len(ds) and all((back[i][0] == items[i][0]).all() for i in range(len(ds)))
    arr = TokenDataset(np.arange(30), 5, 3)
    assert pickle.loads(pickle.dumps(arr))[2][1].tolist() == arr[2][1].tolist()


def test_token_bytes():
    import tokenmill

    enc = tokenmill.get_encoding("cl100k_base")
    tb = token_bytes(enc)
    assert len(tb) == enc.n_vocab and tb.dtype == np.int32
    for i in [0, 255, 1000, 100255]:
        assert tb[i] == len(enc.decode_single_token_bytes(i))
    assert all(tb[i] == 0 for i in enc.special_tokens.values())
    char = tokenmill.CharLevel.train(["aé€"], special_tokens=["<s>"]) if "special_tokens" in tokenmill.CharLevel.train.__code__.co_varnames else tokenmill.CharLevel.train(["aé€"])
    tbc = token_bytes(char)
    assert sorted(tbc[tbc > 0].tolist()) == [1, 2, 3]
    assert all(tbc[i] == 0 for i in char.special_tokens.values())


# ------------------------------------------------------------------------------------ sampler
def global_order(n, world_size, seed=7, epoch=0, drop_last=True, shuffle=True):
    per_rank = []
    for r in range(world_size):
        s = TokenSampler(n, rank=r, world_size=world_size, seed=seed, drop_last=drop_last, shuffle=shuffle)
        s.set_epoch(epoch)
        per_rank.append(list(s))
    return [per_rank[r][k] for k in range(len(per_rank[0])) for r in range(world_size)]


@pytest.mark.parametrize("drop_last", [True, False])
def test_sampler_global_order_independent_of_world_size(drop_last):
    n = 101
    ref = global_order(n, 1, epoch=3, drop_last=drop_last)
    assert sorted(ref) == list(range(n))
    assert ref == np.random.default_rng((7, 3)).permutation(n).tolist()
    for w in (2, 3):
        got = global_order(n, w, epoch=3, drop_last=drop_last)
        if drop_last:
            assert got == ref[:len(got)] and len(got) == (n // w) * w
        else:
            assert got[:n] == ref and got[n:] == ref[:len(got) - n]
    assert global_order(n, 1, epoch=4) != ref
    assert global_order(10, 1, shuffle=False) == list(range(10))


@pytest.mark.parametrize("resume_at", [0, 1, 17, 49, 50])
@pytest.mark.parametrize("w_from,w_to", [(1, 1), (1, 2), (2, 3), (3, 1)])
def test_sampler_resume(resume_at, w_from, w_to):
    n = 100
    ref = global_order(n, 1)
    # Stop every rank of the first run after resume_at samples, save rank 0's state, resume with w_to ranks.
    a = TokenSampler(n, rank=0, world_size=w_from, seed=7)
    it = iter(a)
    for _ in range(min(resume_at, len(a))):
        next(it)
    state = json.loads(json.dumps(a.state_dict()))  # states survive JSON
    done = a.consumed * w_from
    rest = []
    for r in range(w_to):
        b = TokenSampler(n, rank=r, world_size=w_to, seed=7)
        b.load_state_dict(state)
        rest.append(b.remaining().tolist())  # this epoch's rest (iterating past its end starts the next)
    # Rank r resumes at the first of its global positions at or past `done`: together the ranks
    # cover every position from `done` on, exactly once.
    got = {}
    for r in range(w_to):
        first = r + w_to * max(0, -(-(done - r) // w_to))
        positions = range(first, (n // w_to) * w_to, w_to)
        assert len(positions) == len(rest[r])
        got.update(zip(positions, rest[r]))
    if state["epoch"] == 1:  # the first run finished its epoch: the state starts the next one
        ref = global_order(n, 1, epoch=1)
    assert all(ref[pos] == i for pos, i in got.items())
    end = (n // w_to) * w_to
    assert sorted(got) == list(range(done, end))  # nothing repeated, nothing skipped


def test_sampler_state_round_trip_and_epochs():
    s = TokenSampler(10, seed=1)
    first = list(s)
    assert s.epoch == 1 and s.consumed == 0
    second = list(s)
    assert first != second and sorted(first) == sorted(second)
    s.set_epoch(0)
    assert list(s) == first
    t = TokenSampler(10, seed=1)
    it = iter(t)
    head = [next(it) for _ in range(4)]
    u = TokenSampler(10, seed=1)
    u.load_state_dict(t.state_dict())
    assert head + list(u) == first
    with pytest.raises(ValueError, match="seed"):
        TokenSampler(10, seed=2).load_state_dict(t.state_dict())
    with pytest.raises(ValueError, match="rank"):
        TokenSampler(10, rank=2, world_size=2)


# ------------------------------------------------------------------------------------ loader
@pytest.mark.parametrize("num_workers", [0, 2])
def test_loader_order_resume_and_workers(tmp_path, num_workers):
    d = write_npy_shards(tmp_path, [list(range(500)), list(range(500, 700))])
    ds = TokenDataset(d, 8, 5)
    ref = create_dataloader(ds, batch_size=4, seed=3)
    batches = [x for x, _ in ref]
    assert len(batches) == len(ref) == len(ds) // 4
    order = np.random.default_rng((3, 0)).permutation(len(ds))
    assert all((b == ds.get_batch(order[4 * k:4 * k + 4])[0]).all() for k, b in enumerate(batches))
    loader = create_dataloader(ds, batch_size=4, seed=3, num_workers=num_workers)
    it = iter(loader)
    head = [next(it)[0] for _ in range(5)]
    state = loader.state_dict()  # after 5 handed-out batches, whatever was prefetched
    del it
    resumed = create_dataloader(ds, batch_size=4, seed=3, num_workers=num_workers)
    resumed.load_state_dict(state)
    rest = [x for x, _ in resumed]
    assert all((a == b).all() for a, b in zip(head + rest, batches)) and len(head + rest) == len(batches)
    # the next pass is the next epoch
    again = [x for x, _ in resumed]
    assert resumed.sampler.epoch == 2 and not all((a == b).all() for a, b in zip(again, batches))


def test_loader_partial_last_batch_and_errors_in_workers():
    loader = create_dataloader(np.arange(23), batch_size=4, max_length=2, stride=2, shuffle=False, drop_last=False)
    shapes = [x.shape for x, _ in loader]
    assert len(loader) == len(shapes) == 3 and shapes[-1] == (3, 2)

    class Broken(TokenDataset):
        def get_batch(self, indices):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        list(create_dataloader(Broken(np.arange(50), 4, 4), batch_size=2, num_workers=1))
