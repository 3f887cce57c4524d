"""Texts that ship with tokenmill, for demos, examples and quick training runs.

* ``the-verdict.txt``: Edith Wharton's short story "The Verdict" (1908, public domain), the
  sample text of "Build a Large Language Model (From Scratch)".
* ``manifest.json`` lists the samples of ``tokenmill compare --samples`` (the Universal
  Declaration of Human Rights, articles 1-3, in ten languages; Python code with and without
  deep indentation; numbers; the same data as JSON and YAML; a text with ``<|endoftext|>``),
  each with its source and licence; `tokenmill.analysis.samples` reads it.

Package data only: nothing here is downloaded.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["sample_path"]


def sample_path(name: str = "the-verdict.txt") -> Path:
    """Path of a bundled sample text.

    >>> sample_path().name
    'the-verdict.txt'
    """
    return Path(str(resources.files("tokenmill") / "samples" / name))
