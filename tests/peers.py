"""Offline access to the peer libraries (tiktoken) and to ../shared/data, for tests and benchmarks.

tiktoken downloads its rank files on first use; here its cache directory is pre-filled from
../shared/data/tiktoken (file name = sha1 of the URL, tiktoken's cache layout), so no test or
benchmark ever touches the network.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"

_URLS = {
    "r50k_base.tiktoken": "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
    "p50k_base.tiktoken": "https://openaipublic.blob.core.windows.net/encodings/p50k_base.tiktoken",
    "cl100k_base.tiktoken": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base.tiktoken": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "encoder.json": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json",
    "vocab.bpe": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
}


def shared_data() -> Path:
    """../shared/data, or a failure that says where it was looked for."""
    if not SHARED_DATA.is_dir():
        raise RuntimeError(
            f"shared test data not found at {SHARED_DATA}: clone the repo next to the 'shared' folder "
            "(tests need ../shared/data relative to the repo root)"
        )
    return SHARED_DATA


def prefill_tiktoken_cache() -> str:
    """Points TIKTOKEN_CACHE_DIR at a directory holding the shared rank files; returns it."""
    existing = os.environ.get("TIKTOKEN_CACHE_DIR")
    if existing and Path(existing, "tokenmill-prefilled").exists():
        return existing
    data = shared_data()
    cache = Path(tempfile.mkdtemp(prefix="tiktoken-cache-"))
    sources = {name: data / "tiktoken" / name for name in _URLS if name.endswith(".tiktoken")}
    sources["encoder.json"] = data / "gpt2" / "encoder.json"
    sources["vocab.bpe"] = data / "gpt2" / "vocab.bpe"
    for name, src in sources.items():
        shutil.copyfile(src, cache / hashlib.sha1(_URLS[name].encode()).hexdigest())
    (cache / "tokenmill-prefilled").touch()
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return str(cache)


def tiktoken_encoding(name: str):
    """`tiktoken.get_encoding(name)` without network access."""
    prefill_tiktoken_cache()
    import tiktoken

    return tiktoken.get_encoding(name)


def corpus_texts() -> dict[str, str]:
    """Every corpus file in ../shared/data/corpus (and the-verdict), decoded, by relative name."""
    import gzip

    data = shared_data()
    # Bytes, then decode: read_text would turn CRLF into LF and hide real "\r\n" text.
    out = {"the-verdict.txt": (data / "the-verdict.txt").read_bytes().decode("utf-8")}
    for p in sorted((data / "corpus").rglob("*")):
        if p.is_file():
            rel = str(p.relative_to(data))
            if p.suffix == ".gz":
                with gzip.open(p, "rb") as f:
                    out[rel] = f.read().decode("utf-8")
            else:
                out[rel] = p.read_bytes().decode("utf-8")
    return out


def stdlib_sources(limit: int | None = None) -> list[tuple[str, str]]:
    """(path, text) of the Python standard library's .py files, sorted by path."""
    import sysconfig

    root = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for p in sorted(root.rglob("*.py")):
        if "site-packages" in p.parts:
            continue
        try:
            out.append((str(p.relative_to(root)), p.read_bytes().decode("utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
        if limit is not None and len(out) >= limit:
            break
    return out
