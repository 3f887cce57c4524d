"""Tokens in a notebook: `html(text, tokenizers)` returns a `TokenView` that Jupyter shows as
coloured tokens per tokenizer with their counts (``_repr_html_``), and that prints as the
plain ``|``-separated rendering of `tokenmill.viz.show` (``str``).

Safety, because the text and the vocabulary may come from anyone (a tokenizer file can hold
``"><img src=x onerror=...>`` as a token): every piece of text (token text, tokenizer names,
titles) goes through ``html.escape(quote=True)``, in element content and in attributes, and
every attribute value is double-quoted. No user text ever reaches a ``style`` attribute:
colours come from a fixed palette in this module. Each token is its own bidi-isolated span
(``unicode-bidi: isolate``), so right-to-left text or a stray direction mark in one token
cannot reorder its neighbours; control and format characters (bidi overrides included) are
escaped as visible text (``\\u202e``) by `tokenmill.viz.tokens.visible`.

What it does not do: run a server (``tokenmill serve``), include scripts, or load anything
from the network.

>>> import tokenmill
>>> view = html("hi <b>", "gpt2")
>>> print(view)
== gpt2: 4 tokens, 1.50 chars/token, 1.50 bytes/token ==
|hi| <|b|>|
>>> "<b" in view._repr_html_(), "> &lt;</span>" in view._repr_html_()
(False, True)
"""

from __future__ import annotations

import html as _html
from typing import Any

from ..errors import InputError
from .show import header, render_tokens, resolve_all
from .tokens import Piece, pieces, stats

__all__ = ["html", "TokenView", "PALETTE", "MAX_TOKENS"]

#: Background colours cycled over tokens (fixed: no user input ever chooses a style).
PALETTE = ("#cfe2ff", "#ffe0c2", "#d2f4d2", "#fad2ef", "#fff3b0")
_SPECIAL_STYLE = "color:#fff;background:#6f2dbd;font-weight:bold"
_PARTIAL_STYLE = "text-decoration:underline dotted"
# Inline on every token: the bidi isolation (a safety property, kept even where a notebook
# strips <style>) and the colours (dark text on a light background in dark themes too). The rest is cosmetic and shared, in the <style> block.
_SPAN_STYLE = "unicode-bidi:isolate"
_CSS = (".tokenmill-view{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;"
        "line-height:1.9;white-space:pre-wrap;word-break:break-all}"
        ".tokenmill-view .tm-tok{border-radius:2px;padding:0 1px;margin-right:1px;color:#000}"
        ".tokenmill-view .tm-head{font-weight:bold;margin:6px 0 2px 0;white-space:normal}"
        ".tokenmill-view .tm-more{font-style:italic;white-space:normal}")

#: Tokens drawn per tokenizer at most: a browser slows down with hundreds of thousands of spans.
MAX_TOKENS = 20_000


def _esc(s: str) -> str:
    return _html.escape(s, quote=True)


def _span(k: int, p: Piece) -> str:
    if p.special:
        style = _SPECIAL_STYLE
    else:
        style = f"color:#000;background:{PALETTE[k % len(PALETTE)]}" + (";" + _PARTIAL_STYLE if p.partial else "")
    kind = "special token, " if p.special else "partial UTF-8 token, " if p.partial else ""
    title = f"{kind}id {p.id}, {len(p.data)} byte{'s' if len(p.data) != 1 else ''}: {p.data.hex(' ')}"
    cls = "tm-tok tm-special" if p.special else f"tm-tok tm-c{k % len(PALETTE)}"
    out = f'<span class="{cls}" style="{_SPAN_STYLE};{style}" title="{_esc(title)}">{_esc(p.shown)}</span>'
    # The line break is shown as \n inside the token and also breaks the line, as in a terminal.
    return out + "<br>" if p.data.endswith(b"\n") else out


class TokenView:
    """A text's tokens under several tokenizers, for Jupyter (`_repr_html_`) and ``print``.

    Attributes:
        text: the text.
        rows: per tokenizer, ``{"label", "pieces", **stats}`` (`tokenmill.viz.tokens.stats`).
    """

    def __init__(self, text: str, rows: list[dict[str, Any]], max_tokens: int = MAX_TOKENS):
        self.text = text
        self.rows = rows
        self.max_tokens = max_tokens

    def __str__(self) -> str:
        return "\n\n".join(f"{header(r['label'], r)}\n{render_tokens(r['pieces'])}" for r in self.rows)

    def __repr__(self) -> str:
        counts = ", ".join(f"{r['label']}: {r['tokens']}" for r in self.rows)
        return f"<TokenView of {len(self.text)} characters ({counts})>"

    def _repr_html_(self) -> str:
        parts = [f'<div class="tokenmill-view"><style>{_CSS}</style>']
        for r in self.rows:
            ps: list[Piece] = r["pieces"]
            parts.append(f'<div class="tm-head">{_esc(header(r["label"], r).strip("= "))}</div>')
            parts.append('<div class="tm-text">')
            parts.extend(_span(k, p) for k, p in enumerate(ps[: self.max_tokens]))
            if len(ps) > self.max_tokens:
                parts.append(f'<span class="tm-more"> ... '
                             f"{len(ps) - self.max_tokens:,} more tokens not drawn</span>")
            parts.append("</div>")
        parts.append("</div>")
        return "".join(parts)


def html(text: str, tokenizers: Any = "cl100k_base", parse_special: bool = False, *,
         max_tokens: int = MAX_TOKENS) -> TokenView:
    """The tokens of `text` under each tokenizer, for a notebook.

    Args:
        text: the text to show.
        tokenizers: a standard encoding name, a tokenizer file, a tokenizer object, a
            comma-separated string of names, or a list of any of these
            (`tokenmill.viz.show.resolve_all`).
        parse_special: encode special-token text (``<|endoftext|>``) as the special token;
            by default it is ordinary text.
        max_tokens: draw at most this many tokens per tokenizer in HTML (the counts are
            always complete); an int >= 0.

    Returns:
        A `TokenView`: Jupyter displays its ``_repr_html_()``; ``str(view)`` is the plain
        rendering.

    >>> view = html("naïve", ["gpt2", "o200k_base"])
    >>> [(r["label"], r["tokens"]) for r in view.rows]
    [('gpt2', 2), ('o200k_base', 3)]
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise InputError(f"max_tokens must be an int >= 0 (tokens drawn per tokenizer), not {max_tokens!r}")
    rows = []
    for label, tok in resolve_all(tokenizers):
        ps = pieces(tok, text, parse_special=parse_special)
        rows.append({"label": label, "pieces": ps, **stats(text, len(ps))})
    return TokenView(text, rows, max_tokens)
