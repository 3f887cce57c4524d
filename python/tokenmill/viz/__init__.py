"""Seeing tokenization: what a text becomes under one or more tokenizers, for people.

- `tokens`: the one source of tokens for every viewer (`pieces`, `stats`, `resolve`);
- `render`: tokens as plain or coloured terminal text (``tokenmill demo``);
- `show`: several tokenizers side by side in a terminal (``tokenmill show``);
- `notebook`: `html(text, tokenizers)`, an object Jupyter renders (escaped everywhere);
- `server`, `server_api`, ``static/``: the local web page (``tokenmill serve``);
- `plot`: compression against vocabulary size, token-length histograms (matplotlib, optional).

The module is `tokenmill.viz.notebook`, so `tokenmill.viz.html` is always the function.
"""

from .notebook import TokenView, html
from .render import escape_piece, render_color, render_plain

__all__ = ["escape_piece", "render_plain", "render_color", "html", "TokenView"]
