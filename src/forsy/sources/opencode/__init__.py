"""OpenCode's JSON storage and its SQLite database (sessions, messages, parts and subagents'
sessions) as sessions (docstring of `source`)."""

from .source import OpenCodeSource

__all__ = ["OpenCodeSource"]
