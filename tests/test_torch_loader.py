"""`TokenDataset` and `create_dataloader(as_torch=True)` with real torch, when it is installed.

torch is not a test dependency: PyPI's Linux wheel is the CUDA build (about 5 GB with its
nvidia-* packages), too heavy for every CI run. The protocol is tested without torch in
test_dataset.py; this file runs where torch is importable (it was run against torch 2.15 from
PyPI on this project's machine; see the issue notes) and is skipped, with that reason, elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (optional: pip install torch)")

from tokenmill.data import TokenDataset, create_dataloader, prepare  # noqa: E402


def test_token_dataset_in_torch_dataloader(tmp_path, shared_data):
    from torch.utils.data import DataLoader

    text = (shared_data / "the-verdict.txt").read_text(encoding="utf-8")
    (tmp_path / "v.txt").write_text(text, encoding="utf-8")
    prepare([tmp_path / "v.txt"], tmp_path / "shards", tokenizer="gpt2", quiet=True, shard_tokens=1000)
    ds = TokenDataset(tmp_path / "shards", max_length=4, stride=1)
    x, y = next(iter(DataLoader(ds, batch_size=1, shuffle=False)))
    assert x.dtype == torch.int64 and x.tolist() == [[40, 367, 2885, 1464]] and y.tolist() == [[367, 2885, 1464, 1807]]
    # Worker processes (pickled dataset, memory-mapped shards) and shuffling, every window once.
    loader = DataLoader(TokenDataset(tmp_path / "shards", max_length=64, stride=64), batch_size=8, shuffle=True,
                        num_workers=2, generator=torch.Generator().manual_seed(0))
    seen = torch.cat([xb for xb, _ in loader])
    want = np.stack([ds_x for ds_x, _ in TokenDataset(tmp_path / "shards", max_length=64, stride=64)])
    assert sorted(map(tuple, seen.tolist())) == sorted(map(tuple, want.tolist()))


def test_create_dataloader_as_torch(shared_data):
    text = (shared_data / "the-verdict.txt").read_text(encoding="utf-8")
    x, y = next(iter(create_dataloader(text, batch_size=2, max_length=8, stride=8, shuffle=False, as_torch=True)))
    assert isinstance(x, torch.Tensor) and x.shape == (2, 8) and torch.equal(x[:, 1:], y[:, :-1])
