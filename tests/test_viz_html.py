"""`tokenmill.viz.html` (module `tokenmill.viz.notebook`): the notebook view. Token text from a hostile vocabulary and a hostile
file name must come out escaped (no markup, quoted attributes, no user text in styles), and
every token span must be bidi-isolated."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

import tokenmill
from tokenmill.viz.notebook import MAX_TOKENS, PALETTE, TokenView, html
from tokenmill.viz.show import render_all, resolve_all

PAYLOADS = ['"><img src=x onerror=alert(1)>', "<script>alert(1)</script>", "' onmouseover='alert(1)", "</span><b>bold"]


class Tags(HTMLParser):
    """Every start tag with its attributes, and the raw text of each start tag."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.raw: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self.raw.append(self.get_starttag_text() or "")

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture()
def evil_tokenizer(tmp_path):
    """A word-level tokenizer whose tokens are whole lines: the payloads are tokens."""
    vocab = {p: i for i, p in enumerate(PAYLOADS)}
    vocab["<|unk|>"] = len(vocab)
    tok = tokenmill.WordLevel(vocab, {"<|unk|>": len(PAYLOADS)}, pattern=r"(\n)", unk_token="<|unk|>")
    path = tmp_path / '<i>evil" onload="x.json'
    tok.save(path)
    return path


def parse(markup: str) -> Tags:
    t = Tags()
    t.feed(markup)
    t.close()
    return t


def test_hostile_vocabulary_is_escaped(evil_tokenizer):
    text = "\n".join(PAYLOADS)
    view = html(text, [str(evil_tokenizer)])
    assert [r["tokens"] for r in view.rows] == [len(PAYLOADS)]
    markup = view._repr_html_()
    low = markup.lower()
    assert "<img" not in low and "<script" not in low and "<b>" not in low and "<i>" not in low
    assert "onerror=alert(1)&gt;" in markup and "&lt;script&gt;" in markup and "&quot;&gt;&lt;img" in markup
    t = parse(markup)
    assert {tag for tag, _ in t.tags} <= {"div", "span", "br", "style"}
    for (tag, attrs), raw in zip(t.tags, t.raw):
        assert set(attrs) <= {"class", "style", "title"}, raw
        # every attribute value is double-quoted and holds no raw quote or angle bracket
        for name, value in attrs.items():
            assert f'{name}="' in raw
            assert value is not None and "<" not in raw.split(f'{name}="', 1)[1].split('"', 1)[0]
    # the token texts come back exactly as text (the browser's view of the escaped markup)
    shown = "".join(t.text)
    for p in PAYLOADS:
        assert p in shown
    # the hostile file name is escaped in the header too
    assert '&lt;i&gt;evil&quot; onload=&quot;x.json' in markup


def test_no_user_text_in_styles_and_spans_are_isolated(evil_tokenizer):
    text = "\n".join(PAYLOADS) + "\nunknown"
    t = parse(html(text, [str(evil_tokenizer), "gpt2"])._repr_html_())
    spans = [attrs for tag, attrs in t.tags if tag == "span" and "tm-tok" in (attrs.get("class") or "")]
    assert spans
    allowed_backgrounds = {f"background:{c}" for c in PALETTE} | {"background:#6f2dbd"}
    for attrs in spans:
        style = attrs["style"] or ""
        assert style.startswith("unicode-bidi:isolate;")
        parts = style.split(";")
        assert any(p in allowed_backgrounds for p in parts)
        assert set(parts) <= allowed_backgrounds | {"unicode-bidi:isolate", "color:#000", "color:#fff",
                                                    "font-weight:bold", "text-decoration:underline dotted"}
        assert re.fullmatch(r"(special token, |partial UTF-8 token, )?id \d+, \d+ bytes?: [0-9a-f ]+", attrs["title"] or "")


def test_bidi_controls_and_whitespace_are_visible():
    markup = html("abc\u202edef\u2066\tx\n", "cl100k_base")._repr_html_()
    assert "\u202e" not in markup and "\u2066" not in markup
    assert "\\t" in markup and "\\n</span><br>" in markup
    # cl100k cuts U+202E into partial bytes; a vocabulary holding it whole shows it escaped
    tok = tokenmill.WordLevel({"a\u202eb": 0, "<|unk|>": 1}, {"<|unk|>": 1}, unk_token="<|unk|>")
    whole = html("a\u202eb", tok)._repr_html_()
    assert "\u202e" not in whole and "a\\u202eb</span>" in whole


def test_rtl_text_is_kept_and_isolated():
    view = html("مرحبا بالعالم", "o200k_base")
    t = parse(view._repr_html_())
    assert "مرحبا" in "".join(t.text)
    assert all("unicode-bidi:isolate" in (a.get("style") or "") for tag, a in t.tags if tag == "span" and "tm-tok" in (a.get("class") or ""))


def test_titles_hold_id_and_bytes():
    t = parse(html("hi", "gpt2")._repr_html_())
    titles = [a["title"] for tag, a in t.tags if a.get("title")]
    assert titles == ["id 5303, 2 bytes: 68 69"]


def test_special_and_partial_tokens():
    t = parse(html("<|endoftext|>👍🏽", "cl100k_base", parse_special=True)._repr_html_())
    classes = [a.get("class") for tag, a in t.tags if tag == "span"]
    assert "tm-tok tm-special" in classes
    titles = [a["title"] for tag, a in t.tags if a.get("title")]
    assert titles[0].startswith("special token, id 100257")
    assert any(x.startswith("partial UTF-8 token") for x in titles)
    # by default the same text is ordinary text
    assert "tm-special" not in html("<|endoftext|>", "cl100k_base")._repr_html_()


def test_str_is_the_plain_rendering():
    text = "Hello  world\n\tindented"
    view = html(text, ["gpt2", "o200k_base"])
    assert isinstance(view, TokenView)
    assert str(view) == render_all(resolve_all("gpt2,o200k_base"), text)
    assert repr(view).startswith("<TokenView of 22 characters (gpt2: ")


def test_counts_agree_with_count():
    text = "The Verdict, 1908.\n" * 3
    view = html(text, "gpt2,cl100k_base,o200k_base")
    for r in view.rows:
        assert r["tokens"] == tokenmill.get_encoding(r["label"]).count(text, disallowed_special=())


def test_long_texts_are_drawn_up_to_max_tokens():
    view = html("word " * (MAX_TOKENS + 50), "gpt2")
    markup = view._repr_html_()
    assert markup.count('class="tm-tok ') == MAX_TOKENS
    assert "51 more tokens not drawn" in markup or "50 more tokens not drawn" in markup
    assert view.rows[0]["tokens"] > MAX_TOKENS
    small = html("a b c", "gpt2", max_tokens=2)._repr_html_()
    assert small.count('class="tm-tok ') == 2 and "1 more tokens not drawn" in small


def test_max_tokens_is_checked():
    # -1 used to draw all tokens but the last and report a wrong number "not drawn".
    for bad in (-1, "3", True, 1.5):
        with pytest.raises(tokenmill.errors.InputError, match="max_tokens"):
            html("a b c d", "gpt2", max_tokens=bad)
    assert html("a b c d", "gpt2", max_tokens=0)._repr_html_().count('class="tm-tok') == 0


def test_bad_input_is_a_clear_tokenmill_error():
    import tokenmill.viz as viz
    from tokenmill.errors import InputError

    for args, words in [((b"bytes", ["gpt2"]), "must be str"), (("x", []), "no tokenizer given"),
                        (("x", ["no-such-tokenizer"]), "unknown tokenizer")]:
        with pytest.raises(InputError, match=words):
            viz.html(*args)
    # A lone surrogate is shown (as U+FFFD, like encode), never an exception.
    assert "gpt2" in str(viz.html("\ud800 lone", ["gpt2"]))
