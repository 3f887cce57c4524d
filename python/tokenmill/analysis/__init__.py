"""Measuring what tokenization does to text: `compare` (tokens, characters and bytes per token
of texts under several tokenizers) and `inspect` (a vocabulary: token lengths, special tokens,
unreachable and partial tokens, glitch-token candidates). Plain data out; printing and
plotting are the CLI's and `tokenmill.viz`'s.
"""
