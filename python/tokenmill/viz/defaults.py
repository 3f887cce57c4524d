"""The defaults of the viewers and analyses, in a module that imports nothing, so that the
command line can show them in ``--help`` without loading the viewers (which load the
tokenizer formats, the web server and more)."""

#: The tokenizer `tokenmill show` uses when none is given.
DEFAULT_TOKENIZER = "cl100k_base"
#: The encodings `compare` uses when none are given: GPT-2, GPT-4 and GPT-4o.
DEFAULT_ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")
#: Largest input `read_text_file` accepts by default (bytes): rendering more is not reading.
MAX_BYTES = 10_000_000
#: Largest request body the web page's server accepts (bytes).
MAX_BODY = 1 << 20
#: The port `serve` listens on unless told otherwise.
DEFAULT_PORT = 8421
