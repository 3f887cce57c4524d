"""The bundled sample texts, by name: the registry behind ``tokenmill compare --samples``.

Each sample is a small text in ``tokenmill/samples/`` listed in ``samples/manifest.json``
with its name, what it shows, its source and its licence. Together they reproduce the
classic lessons about tokenizers:

* the same passage (articles 1-3 of the Universal Declaration of Human Rights) in English,
  French, German, Spanish, Russian, Arabic, Hindi, Chinese, Japanese and Korean: the other
  languages cost more tokens than English for the same meaning, most of all with GPT-2;
* Python code with and without deep indentation: GPT-2 spends one token per space of
  indentation, cl100k_base one per run of spaces;
* numbers and arithmetic (``998 + 9988 = 10986``): ``998`` is one GPT-2 token, ``9988`` two;
* the same data as JSON and as YAML: YAML costs fewer tokens;
* a text containing the literal ``<|endoftext|>``: ordinary text unless special tokens are
  parsed on purpose;
* "The Verdict", 20 KB of English prose.

What it does not do: tokenize (see `tokenmill.analysis.compare`) or download anything.

>>> [s.name for s in samples("languages")][:3]
['English', 'French', 'German']
>>> sample("numbers and arithmetic").text().splitlines()[1]
'998 + 9988 = 10986'
"""

from __future__ import annotations

import functools
import json
from typing import NamedTuple

from ..errors import InputError
from ..samples import sample_path

__all__ = ["Sample", "samples", "sample", "sample_names", "groups"]

_MANIFEST = "manifest.json"


class Sample(NamedTuple):
    """One bundled text and where it comes from."""

    #: Its name, such as ``"French"`` or ``"data as YAML"``.
    name: str
    #: The file in ``tokenmill/samples/``.
    file: str
    #: Samples that belong together: ``languages``, ``code``, ``numbers``, ``data``, ``special``, ``prose``.
    group: str
    #: What the text is and what it shows.
    description: str
    source: str
    license: str

    def text(self) -> str:
        """The sample's text (UTF-8, read from the package).

        >>> sample("English").text().startswith("All human beings are born free")
        True
        """
        return sample_path(self.file).read_text(encoding="utf-8")

    @property
    def path(self) -> str:
        """The file's path on disk."""
        return str(sample_path(self.file))


# Read on first use (not at import: every CLI start imports this module) and kept: the
# manifest is package data and never changes while running.
@functools.lru_cache(maxsize=None)
def _all() -> tuple[Sample, ...]:
    doc = json.loads(sample_path(_MANIFEST).read_text(encoding="utf-8"))
    return tuple(Sample(e["name"], e["file"], e["group"], e["description"], e["source"], e["license"]) for e in doc["samples"])


def groups() -> list[str]:
    """The groups of samples, in manifest order.

    >>> groups()
    ['languages', 'code', 'numbers', 'data', 'special', 'prose']
    """
    return list(dict.fromkeys(s.group for s in _all()))


def sample_names() -> list[str]:
    """Every sample's name, in manifest order.

    >>> "Python code (deep indentation)" in sample_names()
    True
    """
    return [s.name for s in _all()]


def samples(group: str | None = None) -> list[Sample]:
    """The bundled samples, all of them or one group's.

    Args:
        group: a name from `groups` (``"languages"``, ``"code"``, ...), or None for all.

    Returns:
        `Sample` records in manifest order.

    >>> [s.name for s in samples("data")]
    ['data as JSON', 'data as YAML']
    """
    if group is None:
        return list(_all())
    if group not in groups():
        raise InputError(f"no sample group {group!r}; the groups are {', '.join(groups())}")
    return [s for s in _all() if s.group == group]


def sample(name: str) -> Sample:
    """The sample called `name` (case does not matter).

    Args:
        name: a sample name (`sample_names`).

    Returns:
        The `Sample`; an unknown name raises `InputError` listing the names.

    >>> sample("python code").file
    'python-code.py.txt'
    """
    for s in _all():
        if s.name.casefold() == str(name).casefold():
            return s
    raise InputError(f"no bundled sample {name!r}; the samples are: {', '.join(sample_names())}")
