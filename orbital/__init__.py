"""Orbital: event-sourced project memory for AI coding agents.

The package is layered (see ARCHITECTURE.md); this top-level module stays import-free so
that importing the vocabulary never drags in the database or the web stack.
"""

__version__ = "0.1.0"
