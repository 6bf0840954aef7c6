"""The names under which the ledger counts the OpenCode records no step cites (docs/rules.md
lists each, with what it covers)."""

from __future__ import annotations

# metadata
SESSION = "session info (title, directory, version, times)"
MESSAGE = "a message's role, agent, model, usage and time"
USAGE = "a model call's usage (tokens, cost, finish reason)"

# set aside
STEP = "step boundaries carry no work"
SNAPSHOT = "snapshots and patches name git trees, not work"
SYNTHETIC = "context OpenCode added to a prompt"
IGNORED = "a part OpenCode did not send to the model"
ATTACHMENT = "an attachment (its text, when sent, is a part of its own)"
AGENT = "an agent the person named (@agent)"
SUBTASK = "a subtask a command asked for (OpenCode runs it as a task call)"
COMPACTION_ASKED = "a compaction request (the summary follows)"
SUMMARY_REASONING = "the compaction agent's reasoning"
RETRY = "an API call OpenCode retried"
SUBAGENT_TASK = "the task the parent agent gave this subagent"
ENCRYPTED = "encrypted reasoning is not readable"
EMPTY = "an empty part"
SHELL = "a command the person ran (!) and its output"
UNREAD_MESSAGE = "parts of a message forsy could not read"
