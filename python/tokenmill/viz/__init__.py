"""Seeing tokenization: what a text becomes under one or more tokenizers, for people.

- `tokens`: the one source of tokens for every viewer (`pieces`, `stats`, `resolve`);
- `render`: tokens as plain or coloured terminal text (``tokenmill demo``);
- `show`: several tokenizers side by side in a terminal (``tokenmill show``);
- `notebook`: `html(text, tokenizers)`, an object Jupyter renders (escaped everywhere);
- `server`, `server_api`, ``static/``: the local web page (``tokenmill serve``);
- `plot`: compression against vocabulary size, token-length histograms (matplotlib, optional).

The module is `tokenmill.viz.notebook`, so `tokenmill.viz.html` is always the function.
`defaults` holds the viewers' defaults for the command line's ``--help``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .render import escape_piece, render_color, render_plain

if TYPE_CHECKING:
    from .notebook import TokenView, html

__all__ = ["escape_piece", "render_plain", "render_color", "html", "TokenView"]


def __getattr__(name: str) -> Any:
    # The notebook view loads on first use: the command line imports `viz` for its light
    # modules (`render`, `defaults`) and must not pay for the formats behind `html`.
    if name in ("html", "TokenView"):
        value = getattr(importlib.import_module(f"{__name__}.notebook"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
