"""Showing tokens as text: escaping a token's bytes so that whitespace, control characters
and partial UTF-8 are visible, and colouring token boundaries for a terminal.

Used by the CLI (``demo``, ``train``'s summary), with the escaping every viewer uses
(`tokens.visible`). It does not encode (callers pass token bytes) or write anything.
"""

from __future__ import annotations

from typing import Sequence

from .tokens import visible

__all__ = ["escape_piece", "render_plain", "render_color", "BACKGROUNDS"]

#: ANSI background colours cycled over tokens.
BACKGROUNDS = ("48;5;153", "48;5;223", "48;5;194", "48;5;225", "48;5;230")


def escape_piece(piece: bytes, plain: bool) -> str:
    """A token's bytes as visible text (`tokens.visible`: control characters, backslashes and
    bytes that are not whole UTF-8 characters escaped, ``\\n``, ``\\x1b``, ``\\xf0``); in
    plain mode ``|`` is escaped too, so the ``|`` separators stay unambiguous."""
    shown = visible(piece)
    return shown.replace("|", "\\|") if plain else shown


def render_plain(pieces: Sequence[bytes]) -> str:
    """Tokens between ``|`` separators, escaped (see `escape_piece`).

    >>> render_plain([b"Hi", b" there", b"\\n"])
    '|Hi| there|\\\\n|'
    """
    return "|" + "|".join(escape_piece(p, plain=True) for p in pieces) + "|" if pieces else "(no tokens)"


def render_color(pieces: Sequence[bytes]) -> str:
    """Tokens on alternating ANSI background colours; a token ending in a newline ends a line.

    >>> render_color([b"a", b"b"]) == "\\x1b[30;48;5;153ma\\x1b[0m\\x1b[30;48;5;223mb\\x1b[0m"
    True
    """
    shown = []
    for k, p in enumerate(pieces):
        shown.append(f"\x1b[30;{BACKGROUNDS[k % len(BACKGROUNDS)]}m{escape_piece(p, plain=False)}\x1b[0m")
        if p.endswith(b"\n"):
            shown.append("\n")
    return "".join(shown).rstrip("\n")
