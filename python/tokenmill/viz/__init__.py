"""Seeing tokenization: rendering tokens for people (`render`); the web page and terminal
viewer will join it here."""

from .render import escape_piece, render_color, render_plain

__all__ = ["escape_piece", "render_plain", "render_color"]
