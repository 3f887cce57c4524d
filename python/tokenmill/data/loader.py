"""Sampling and batching `TokenDataset` windows for training loops: a deterministic, resumable,
rank-aware sampler and a numpy data loader.

What it does:

* `TokenSampler`: one permutation of the windows per epoch, from ``numpy.random.default_rng
  ((seed, epoch))``; rank ``r`` of ``world_size`` takes positions ``r, r + world_size, ...`` of
  it, so the global order (the ranks' samples interleaved) does not depend on the world size.
  Its state (epoch, samples consumed) resumes mid-epoch in O(1): an index into the permutation.
* `create_dataloader`: the book's ``create_dataloader_v1`` without torch: batches of
  ``(inputs, targets)`` int64 arrays, each gathered by one `TokenDataset.get_batch` call.

What it does not do: import torch unless asked (``as_torch=True``), start processes, or pad:
every batch but (with ``drop_last=False``) the last is full.

Decisions:

* ``num_workers=N`` (N > 0) assembles batches on one background thread, up to ``2 * N``
  ahead of the training loop; the batches and their order are exactly those of
  ``num_workers=0``. Threads, not processes: a batch is one numpy gather (~50 us), far below
  what a process round trip costs, and the gather overlaps a training step that releases the
  interpreter lock (torch does, on every op).
* The permutation of an epoch is held in memory: 8 bytes per window (10 billion tokens in
  1,024-token windows: 80 MB).

>>> import numpy as np
>>> loader = create_dataloader(np.arange(20), batch_size=2, max_length=3, stride=3, shuffle=False)
>>> len(loader), [x.tolist() for x in next(iter(loader))]
(3, [[[0, 1, 2], [3, 4, 5]], [[1, 2, 3], [4, 5, 6]]])
"""

from __future__ import annotations

import os
import queue
import threading
from typing import TYPE_CHECKING, Any, Iterator

from .._args import int_arg
from .dataset import TokenDataset

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["TokenSampler", "TokenLoader", "create_dataloader"]


class TokenSampler:
    """Sample indices for one rank: a seeded permutation per epoch, resumable mid-epoch.

    The guarantee: let ``perm(e)`` be ``default_rng((seed, epoch)).permutation(n_samples)``
    (``arange(n_samples)`` without shuffle) and ``total`` the epoch's sample count over all ranks:
    ``n_samples`` rounded down to a multiple of `world_size` with ``drop_last=True``, up with
    ``drop_last=False`` (the extra positions wrap around to the start of ``perm(e)``, as torch's
    ``DistributedSampler`` pads). Rank ``r`` yields ``perm(e)[r::world_size]`` up to ``total``.
    So the global order - rank 0's first sample, rank 1's first, ..., rank 0's second, ... - is
    ``perm(e)`` for every world size and every number of loader workers (the sampler runs in
    the process that owns it; workers only gather); only where the epoch ends depends on the
    world size. A state saved after ``k`` samples per rank resumes at global position
    ``k * world_size``, also under another world size, with no sample repeated or skipped
    (with a world size that does not divide that position, each rank starts at its first
    position at or past it).

    Iterating yields this rank's remaining indices of the current epoch and counts them as
    consumed; when the epoch is exhausted, the next iteration starts the next epoch (as a torch
    ``DataLoader`` reshuffles on each pass). `set_epoch` jumps to the start of an epoch.

    Args:
        n_samples: Number of samples (windows) in the dataset.
        rank: This process's rank, ``0 <= rank < world_size``.
        world_size: Number of ranks.
        shuffle: Permute (else the natural order).
        seed: Seed of the permutations.
        drop_last: Drop the tail that does not divide evenly among the ranks (else wrap around).

    >>> s = TokenSampler(10, shuffle=False, rank=1, world_size=3)
    >>> list(s), len(s)
    ([1, 4, 7], 3)
    """

    def __init__(self, n_samples: int, *, rank: int = 0, world_size: int = 1, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = True):
        self.n_samples = int_arg("n_samples", n_samples, 0)
        self.world_size = int_arg("world_size", world_size, 0)
        self.rank = int_arg("rank", rank, 0)
        if self.world_size < 1 or self.rank >= self.world_size:
            raise ValueError(f"need 0 <= rank < world_size, got rank={rank}, world_size={world_size}")
        self.shuffle = bool(shuffle)
        self.seed = int_arg("seed", seed, 0)
        self.drop_last = bool(drop_last)
        self.epoch = 0
        self.consumed = 0  # samples of the current epoch this rank has handed out
        self._perm_epoch = -1
        self._perm: Any = None

    @property
    def total(self) -> int:
        """Samples in an epoch, over all ranks."""
        w = self.world_size
        return (self.n_samples // w) * w if self.drop_last or not self.n_samples else -(-self.n_samples // w) * w

    def __len__(self) -> int:
        """Samples this rank yields in a full epoch."""
        return self.total // self.world_size

    def set_epoch(self, epoch: int) -> None:
        """Starts epoch `epoch` from its beginning (as ``DistributedSampler.set_epoch``)."""
        self.epoch = int_arg("epoch", epoch, 0)
        self.consumed = 0

    def permutation(self) -> "np.ndarray":
        """The current epoch's global order, ``perm(epoch)`` (cached; int64)."""
        import numpy as np

        if self._perm_epoch != self.epoch:
            if self.shuffle:
                self._perm = np.random.default_rng((self.seed, self.epoch)).permutation(self.n_samples)
            else:
                self._perm = np.arange(self.n_samples, dtype=np.int64)
            self._perm_epoch = self.epoch
        return self._perm

    def remaining(self) -> "np.ndarray":
        """This rank's indices of the current epoch not yet consumed, as an array (nothing is consumed).

        >>> s = TokenSampler(6, shuffle=False, world_size=2); s.consumed = 1
        >>> s.remaining().tolist()
        [2, 4]
        """
        import numpy as np

        perm = self.permutation()
        if not len(perm):
            return np.empty(0, np.int64)
        pos = np.arange(self.rank + self.consumed * self.world_size, self.total, self.world_size)
        return perm[pos % self.n_samples]  # the modulo wraps the padding of drop_last=False

    def _advance(self, count: int) -> None:
        self.consumed += count
        if self.consumed >= len(self):
            self.epoch, self.consumed = self.epoch + 1, 0

    def __iter__(self) -> Iterator[int]:
        if self.consumed >= len(self) > 0:  # resumed at the very end of an epoch
            self.epoch, self.consumed = self.epoch + 1, 0
        for i in self.remaining().tolist():
            self._advance(1)
            yield i

    def state_dict(self) -> dict[str, Any]:
        """``{"epoch", "consumed", "global_consumed", "seed", "n_samples", "world_size", "rank"}``.

        >>> s = TokenSampler(8, seed=3); _ = [next(iter(s)) for _ in range(2)]
        >>> s.state_dict()["consumed"]
        2
        """
        return {"epoch": self.epoch, "consumed": self.consumed, "global_consumed": self.consumed * self.world_size,
                "seed": self.seed, "n_samples": self.n_samples, "world_size": self.world_size, "rank": self.rank,
                "shuffle": self.shuffle}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resumes from `state_dict` output, possibly saved under another world size.

        Raises ValueError if the state is of a different dataset size, seed or shuffle setting.

        >>> a = TokenSampler(8, seed=3); it = iter(a); _ = next(it)
        >>> b = TokenSampler(8, seed=3); b.load_state_dict(a.state_dict())
        >>> list(b) == list(it)
        True
        """
        for key in ("n_samples", "seed", "shuffle"):
            if key in state and state[key] != getattr(self, key):
                raise ValueError(f"the state is of a sampler with {key}={state[key]!r}, this one has {key}={getattr(self, key)!r}")
        self.epoch = int_arg("epoch", state["epoch"], 0)
        g = int_arg("global_consumed", state.get("global_consumed", state["consumed"] * state.get("world_size", 1)), 0)
        # The first position of this rank at or past global position g, counted in this rank's samples.
        self.consumed = max(0, -(-(g - self.rank) // self.world_size))


class TokenLoader:
    """Re-iterable batches of a `TokenDataset` in `TokenSampler` order (see `create_dataloader`).

    Attributes: `dataset`, `sampler`, `batch_size`, `drop_last`, `num_workers`, `as_torch`.
    `state_dict` counts only batches already handed to the caller (not those prefetched).
    """

    def __init__(self, dataset: TokenDataset, sampler: TokenSampler, batch_size: int, drop_last: bool = True,
                 num_workers: int = 0, as_torch: bool = False):
        self.dataset = dataset
        self.sampler = sampler
        self.batch_size = int_arg("batch_size", batch_size, 0)
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.drop_last = drop_last
        self.num_workers = int_arg("num_workers", num_workers, 0)
        self.as_torch = as_torch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _index_batches(self) -> Iterator["np.ndarray"]:
        idx = self.sampler.remaining()
        b = self.batch_size
        stop = (len(idx) // b) * b if self.drop_last else len(idx)
        for lo in range(0, stop, b):
            yield idx[lo:lo + b]

    def _epoch_done(self) -> bool:
        left = len(self.sampler) - self.sampler.consumed
        return left < (self.batch_size if self.drop_last else 1)

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        s = self.sampler
        if self._epoch_done():  # a state saved after the epoch's last batch: go on with the next epoch
            s.epoch, s.consumed = s.epoch + 1, 0
        convert = _to_torch if self.as_torch else None
        batches: Iterator[tuple[Any, Any]] = (self.dataset.get_batch(ix) for ix in self._index_batches())
        if self.num_workers:
            batches = _prefetch(batches, 2 * self.num_workers)
        for x, y in batches:
            # Counted when handed out, so a state saved now resumes at the next batch.
            s.consumed += len(x)
            if convert is not None:
                x, y = convert(x), convert(y)
            yield x, y
        if self._epoch_done():
            s.epoch, s.consumed = s.epoch + 1, 0

    def set_epoch(self, epoch: int) -> None:
        """`TokenSampler.set_epoch`."""
        self.sampler.set_epoch(epoch)

    def state_dict(self) -> dict[str, Any]:
        """The sampler's state after the last batch handed out."""
        return self.sampler.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resumes at the batch after the one the state was saved at."""
        self.sampler.load_state_dict(state)


def _prefetch(batches: Iterator[Any], depth: int) -> Iterator[Any]:
    """`batches`, computed on a background thread up to `depth` ahead; errors re-raised here."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def work() -> None:
        try:
            for item in batches:
                while not stop.is_set():
                    try:
                        q.put((None, item), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put((None, done))
        except BaseException as e:  # handed to the consumer, which re-raises it
            q.put((e, None))

    thread = threading.Thread(target=work, name="tokenmill-loader", daemon=True)
    thread.start()
    try:
        while True:
            err, item = q.get()
            if err is not None:
                raise err
            if item is done:
                return
            yield item
    finally:  # the consumer stopped early (break, exception): let the thread end
        stop.set()


def _to_torch(a: "np.ndarray") -> Any:
    import torch  # type: ignore[import-not-found]  # optional; checked by create_dataloader

    return torch.from_numpy(a)


def create_dataloader(text_or_dataset: Any, batch_size: int = 4, max_length: int = 256, stride: int = 128,
                      shuffle: bool = True, drop_last: bool = True, num_workers: int = 0, seed: int | None = None,
                      tokenizer: Any = "gpt2", *, rank: int = 0, world_size: int = 1, align: str = "token",
                      as_torch: bool = False) -> TokenLoader:
    """Batches of (input, target) windows: the book's ``create_dataloader_v1``, in numpy.

    Args:
        text_or_dataset: A text, a shard directory, an id array, or a `TokenDataset` (then
            `max_length`, `stride`, `tokenizer` and `align` are the dataset's own).
        batch_size: Windows per batch.
        max_length: Ids per window.
        stride: Distance between window starts.
        shuffle: A new seeded permutation each epoch (`TokenSampler`); else in order.
        drop_last: Drop the last, partial batch (and the samples that do not divide among ranks).
        num_workers: 0: batches are gathered when asked for. N > 0: on a background thread, up
            to 2N batches ahead; the same batches in the same order.
        seed: Seed of the shuffle; None draws one (kept in ``loader.sampler.seed`` and the state).
        tokenizer: For a text: a tokenizer, an encoding name or a file.
        rank, world_size: This process's share in data-parallel training (see `TokenSampler`).
        align: ``"token"`` or ``"document"`` (see `TokenDataset`).
        as_torch: Yield torch tensors (``torch.from_numpy``, no copy); needs torch.

    Returns:
        A re-iterable `TokenLoader`; ``len()`` is the number of batches of an epoch. Each pass
        continues the sampler's epoch (a new one once the last was finished). Raises ValueError
        when the dataset has no window (fewer than ``max_length + 1`` tokens) or, with
        `drop_last`, fewer windows per rank than `batch_size`.

    >>> from tokenmill.samples import sample_path
    >>> text = sample_path().read_text(encoding="utf-8")
    >>> loader = create_dataloader(text, batch_size=1, max_length=4, stride=1, shuffle=False)
    >>> inputs, targets = next(iter(loader))
    >>> inputs.tolist(), targets.tolist()
    ([[40, 367, 2885, 1464]], [[367, 2885, 1464, 1807]])
    """
    import numpy as np

    if isinstance(text_or_dataset, TokenDataset):
        ds = text_or_dataset
    else:
        tok = tokenizer if isinstance(text_or_dataset, str) else None
        if isinstance(text_or_dataset, str) and tok == "gpt2" and "\n" not in text_or_dataset and len(text_or_dataset) < 4096:
            if os.path.isdir(text_or_dataset):  # the default tokenizer does not make a directory name a text
                tok = None
        ds = TokenDataset(text_or_dataset, max_length, stride, tokenizer=tok, align=align)
    if len(ds) == 0:
        raise ValueError(f"the dataset has no window: {ds.n_tokens} tokens, and a window needs max_length + 1 = "
                         f"{ds.max_length + 1}; use a smaller max_length or more text")
    if drop_last and len(ds) // world_size < batch_size:
        raise ValueError(f"the dataset has {len(ds)} windows, fewer than batch_size={batch_size} per rank, and "
                         "drop_last=True would give no batch; use a smaller batch_size or drop_last=False")
    if as_torch:
        try:
            import torch  # type: ignore[import-not-found]  # noqa: F401
        except ImportError:
            raise ImportError("as_torch=True needs torch (pip install torch); without it the loader yields numpy arrays") from None
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) % 2**63 if shuffle else 0  # type: ignore[arg-type]
    sampler = TokenSampler(len(ds), rank=rank, world_size=world_size, shuffle=shuffle, seed=seed, drop_last=drop_last)
    return TokenLoader(ds, sampler, batch_size, drop_last=drop_last, num_workers=num_workers, as_torch=as_torch)
