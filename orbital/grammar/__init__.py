"""Grammars: parse and render the markdown (pure; below the domain, above the vocabulary)."""
