"""The memory editor's pure core: choices parsing, quote-checked closes, the conversation's
fixed texts and the scheduling decision. The model client and the tool loop live in the
shell (``orbital.editor``)."""
