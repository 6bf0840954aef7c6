"""OpenCode's JSON storage (sessions, messages, parts and subagents' sessions) as sessions
(docstring of `source`)."""

from .source import OpenCodeSource

__all__ = ["OpenCodeSource"]
