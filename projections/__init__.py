"""The read side: pure markdown grammars (parse and render) and other read models."""
