"""Work units and the engines that run them: what `prepare` and `train_bpe` share.

`units` groups input files (or `pieces` of them: byte ranges of big files of lines), in order,
into work units of at least ``unit_bytes`` on disk (only the file sizes decide, so every engine
sees the same units); `run_tasks` runs a
module-level function once per unit on a distributed engine: Ray tasks (``engine="ray"``,
retried when a worker dies) or any ``concurrent.futures.Executor`` (``engine.submit``).
tokenmill, not the engine, decides what a unit is and how results combine, so the output
does not depend on the engine.

It does not run the local engine (each caller's own loop does) and holds no policy about
what a task computes.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ..errors import InputError, UnsupportedError

__all__ = ["UNIT_BYTES", "units", "pieces", "parquet_row_groups", "gzipped", "is_distributed", "run_tasks"]

#: Default size of a work unit on disk.
UNIT_BYTES = 1 << 30


def units(sizes: list[int], unit_bytes: int) -> list[list[int]]:
    """Consecutive source indices, each group at least `unit_bytes` on disk (the last may be
    smaller): the units that can be processed independently. Only the file sizes decide.

    Args:
        sizes: Each input file's size on disk, in input order.
        unit_bytes: The smallest size of a unit (but the last).

    Returns:
        The units, as lists of indices into `sizes`.

    >>> units([3, 3, 3, 1], 5)
    [[0, 1], [2, 3]]
    """
    out: list[list[int]] = [[]]
    size = 0
    for i, n in enumerate(sizes):
        if size >= unit_bytes:
            out.append([])
            size = 0
        out[-1].append(i)
        size += n
    return out


def pieces(sizes: list[int], unit_bytes: int, splittable: list[bool],
           row_groups: list[list[tuple[int, int]] | None] | None = None) -> list[tuple[int, int | None, int | None, int]]:
    """The inputs as pieces for `units`, ``(file, start, end, bytes)``: each file whole,
    ``(i, None, None, size)``, except
    * a splittable file (lines, not gzipped) larger than `unit_bytes`: byte ranges of
      `unit_bytes` each; the reader gives a range the lines that start in it, so a file's
      pieces read each line once, whatever line the ends cut;
    * a parquet file larger than `unit_bytes` with several row groups (`row_groups[i]`: each
      group's ``(rows, bytes on disk)``): ranges of rows, whole row groups of at least
      `unit_bytes` together.

    Args:
        sizes: Each input file's size on disk, in input order.
        unit_bytes: The size of a range (and the smallest size of a unit).
        splittable: Per file, whether it may be read in byte ranges.
        row_groups: Per file, its parquet row groups, or None.

    Returns:
        The pieces, in input order.

    >>> pieces([5, 25], 10, [True, True])
    [(0, None, None, 5), (1, 0, 10, 10), (1, 10, 20, 10), (1, 20, 25, 5)]
    >>> pieces([30], 10, [False], [[(100, 6), (100, 6), (50, 18)]])
    [(0, 0, 200, 12), (0, 200, 250, 18)]
    """
    out: list[tuple[int, int | None, int | None, int]] = []
    for i, (n, split) in enumerate(zip(sizes, splittable)):
        groups = row_groups[i] if row_groups is not None else None
        if split and n > unit_bytes:
            out.extend((i, a, min(a + unit_bytes, n), min(unit_bytes, n - a)) for a in range(0, n, unit_bytes))
        elif groups and len(groups) > 1 and n > unit_bytes:
            row = first = size = 0
            for rows, nbytes in groups:
                row += rows
                size += nbytes
                if size >= unit_bytes:
                    out.append((i, first, row, size))
                    first, size = row, 0
            if row > first:
                out.append((i, first, row, size))
        else:
            out.append((i, None, None, n))
    return out


def parquet_row_groups(path: str) -> list[tuple[int, int]]:
    """``(rows, bytes on disk)`` of each row group of a parquet file (from its footer)."""
    import pyarrow.parquet as pq  # type: ignore

    md = pq.ParquetFile(path).metadata
    return [(md.row_group(g).num_rows,
             sum(md.row_group(g).column(c).total_compressed_size for c in range(md.row_group(g).num_columns)))
            for g in range(md.num_row_groups)]


def gzipped(path: str) -> bool:
    """Whether the file starts with gzip's magic bytes (then it cannot be read from the middle).

    >>> import tempfile, gzip
    >>> p = tempfile.mktemp()
    >>> _ = open(p, "wb").write(gzip.compress(b"x")); gzipped(p)
    True
    """
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def is_distributed(engine: Any) -> bool:
    """False for the local engine (None or ``"local"``), True for ``"ray"`` or an Executor.

    Args:
        engine: The caller's ``engine=`` argument.

    Returns:
        Whether units run as tasks of a distributed engine.

    Raises:
        InputError: Any other value (the message names the choices).

    >>> is_distributed(None), is_distributed("ray")
    (False, True)
    """
    if engine is None or (isinstance(engine, str) and engine == "local"):
        return False
    if (isinstance(engine, str) and engine == "ray") or hasattr(engine, "submit"):
        return True
    raise InputError(f"engine must be 'local', 'ray' or a concurrent.futures.Executor, not {engine!r}")


def run_tasks(engine: Any, fn: Callable[..., Any], args: list[tuple]) -> Iterator[Any]:
    """Runs ``fn(*a)`` for each `a` of `args` on `engine` and yields the results in order.

    With ``"ray"``, each call is a Ray task retried up to 3 times if its worker dies (so `fn`
    must be safe to rerun); it joins the cluster ``ray.init()`` finds (``RAY_ADDRESS``), or
    starts a local one and stops it after. With an Executor, each call is
    ``engine.submit(fn, *a)``. `fn` must be a module-level function (it is pickled).

    Args:
        engine: ``"ray"`` or an object with ``submit`` (see `is_distributed`).
        fn: The task.
        args: One argument tuple per task.

    Returns:
        An iterator over the results, in the order of `args`.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as ex:
    ...     list(run_tasks(ex, pow, [(2, 3), (3, 2)]))
    [8, 9]
    """
    if engine == "ray":
        return _on_ray(fn, args)
    # Submitted all at once, so the tasks run in parallel while the caller takes results.
    futures = [engine.submit(fn, *a) for a in args]
    return (f.result() for f in futures)


def _on_ray(fn: Callable[..., Any], args: list[tuple]) -> Iterator[Any]:
    try:
        import ray  # type: ignore
    except ImportError:
        raise UnsupportedError('engine="ray" needs Ray: pip install "tokenmill[ray]"') from None
    started = not ray.is_initialized()
    if started:
        ray.init(include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(max_retries=3)(fn)
        refs = [task.remote(*a) for a in args]
        for ref in refs:
            try:
                yield ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                # The task's own exception (a CorpusError naming file:line, say), not Ray's
                # wrapper with its traceback text and terminal colours.
                cause = getattr(e, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise
    finally:
        if started:
            ray.shutdown()
