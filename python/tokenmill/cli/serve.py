"""``tokenmill serve``: placeholder while issue 12 is built (registered so that the CLI's
command list is final)."""

from __future__ import annotations

__all__ = ["add_parser"]


def add_parser(sub, common) -> None:
    """Adds the ``serve`` subcommand to the CLI's subparsers (not yet built)."""
