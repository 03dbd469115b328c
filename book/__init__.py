"""Companion package of *Tokenization from Scratch*.

Layers, from the bottom up (imports only point down):

- plumbing: ``book.corpora`` (the shipped texts), ``book.encodings`` (tiktoken files offline);
- tokenizers: ``book.tokenizers`` (pure logic: text in, ids out);
- on top: ``book.show`` (widgets, viewers, plots) and ``book.checks`` / ``book.grade``
  (exercise checks and the grader).
"""

__version__ = "0.1.0"
