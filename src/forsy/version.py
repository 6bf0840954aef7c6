"""forsy's version, defined once: below every package, so any of them may name it."""

__version__ = "0.1.0"
