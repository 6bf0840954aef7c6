"""Write `exec-json-run.jsonl`: what `codex exec --json` printed on stdout for two runs on one
thread, saved as they came (`codex exec --json "…" > run.jsonl`, then `codex exec --json resume
<id> "…" >> run.jsonl`), as a CI job keeps it.

Every event below was written by hand by the forsy developers in the shapes the writer's code
gives them (openai/codex codex-rs/exec/src/exec_events.rs and
event_processor_with_jsonl_output.rs, newer versions: `type` tags, `agent_message`, item ids
`item_0`… counted again by the second process). The work (a tiny `pricing` project, its test
output, the MCP server `docs`, the search) is invented and never happened; no real log was
copied. This script only serializes the events the way the writer does (serde_json: compact,
fields in declaration order, non-ASCII kept as is, one event a line), so running it again
gives the same bytes:

    python sample_logs/codex/make_exec_json_sample.py

A web search item is written by hand as text: the writer flattens the search's own `id` into
the item beside the item's `id`, so its line holds the key `id` twice, which no dict can.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
THREAD = "019e3c4a-7b21-7d02-9a55-3f0c1d2e4b6a"  # made up, in the shape of a uuid v7
CWD = "/home/dev/projects/pricing"
TEST = "/bin/bash -lc 'python -m pytest -q'"


def dump(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def ev(kind: str, **fields: Any) -> str:
    return dump({"type": kind, **fields})


def item(event: str, iid: str, kind: str, **fields: Any) -> str:
    return ev(event, item={"id": iid, "type": kind, **fields})


def command(event: str, iid: str, cmd: str, output: str = "", code: int | None = None,
            status: str = "in_progress") -> str:
    return item(event, iid, "command_execution", command=cmd, aggregated_output=output, exit_code=code, status=status)


def todo(event: str, iid: str, done: int) -> str:
    steps = ["Reproduce the failing test", "Fix round_price", "Run the whole suite"]
    return item(event, iid, "todo_list", items=[{"text": s, "completed": i < done} for i, s in enumerate(steps)])


def mcp(event: str, iid: str, tool: str, arguments: Any, status: str = "in_progress", result: Any = None,
        error: Any = None) -> str:
    return item(event, iid, "mcp_tool_call", server="docs", tool=tool, arguments=arguments, result=result,
                error=error, status=status)


def web_search(event: str, iid: str, query: str, action: dict[str, Any]) -> str:
    # {"id": <item id>, "type": "web_search", "id": <search id>, …}: written as the writer writes it
    body = f'"query":{dump(query)},"action":{dump(action)}'
    return f'{{"type":{dump(event)},"item":{{"id":{dump(iid)},"type":"web_search","id":"ws_0a1b2c3d",{body}}}}}'


def usage(inp: int, cached: int, out: int) -> dict[str, int]:
    return {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out}


FAIL = """.F.                                                                      [100%]
=================================== FAILURES ===================================
_______________________________ test_half_cent _______________________________

    def test_half_cent():
>       assert round_price(2.675) == 2.68
E       assert 2.67 == 2.68

tests/test_price.py:9: AssertionError
1 failed, 2 passed in 0.02s
"""
PASS = "...                                                                      [100%]\n3 passed in 0.02s\n"
DOCS = ("decimal.Decimal.quantize(exp, rounding=ROUND_HALF_UP) rounds a Decimal to the exponent of `exp`; "
        "build the Decimal from the string of the price, not the float.")


def first_run() -> list[str]:
    """The run: a notice, the failing test, a plan, the docs (one lookup fails), the fix, a
    clean-up that was declined, a search, the passing suite, the answer."""
    return [
        ev("thread.started", thread_id=THREAD),
        item("item.completed", "item_0", "error", message="`[features].web_search_request` is deprecated. "
             "Use `web_search` instead."),
        ev("turn.started"),
        item("item.completed", "item_1", "reasoning", text="**Reproducing the failure**\n\nRun the tests first to "
             "see which case of round_price fails."),
        command("item.started", "item_2", TEST),
        command("item.updated", "item_2", TEST, ".F."),
        command("item.completed", "item_2", TEST, FAIL, 1, "failed"),
        todo("item.started", "item_3", 1),
        mcp("item.started", "item_4", "search", {"query": "round half up decimal"}),
        mcp("item.completed", "item_4", "search", {"query": "round half up decimal"}, "completed",
            {"content": [{"type": "text", "text": DOCS}], "structured_content": None}),
        mcp("item.started", "item_5", "fetch", {"page": "decimal#rounding-modes"}),
        mcp("item.completed", "item_5", "fetch", {"page": "decimal#rounding-modes"}, "failed",
            error={"message": "tool call error: page 'decimal#rounding-modes' not found"}),
        item("item.completed", "item_6", "reasoning", text="**Using Decimal**\n\nThe float 2.675 is stored as "
             "2.67499…; quantize a Decimal built from its string instead."),
        item("item.started", "item_7", "file_change", changes=[{"path": f"{CWD}/pricing/price.py", "kind": "update"}],
             status="in_progress"),
        item("item.completed", "item_7", "file_change", changes=[{"path": f"{CWD}/pricing/price.py",
                                                                  "kind": "update"}], status="completed"),
        todo("item.updated", "item_3", 2),
        command("item.started", "item_8", "/bin/bash -lc 'rm -rf build .pytest_cache'"),
        command("item.completed", "item_8", "/bin/bash -lc 'rm -rf build .pytest_cache'", status="declined"),
        web_search("item.started", "item_9", "", {"type": "other"}),
        web_search("item.completed", "item_9", "python round half up 2.675",
                   {"type": "search", "query": "python round half up 2.675"}),
        command("item.started", "item_10", TEST),
        command("item.completed", "item_10", TEST, PASS, 0, "completed"),
        todo("item.updated", "item_3", 3),
        item("item.completed", "item_11", "agent_message", text="Fixed `round_price`: it now quantizes a Decimal "
             "built from the price's string with ROUND_HALF_UP, so 2.675 rounds to 2.68. All 3 tests pass. I did "
             "not remove `build/`: that command was declined."),
        todo("item.completed", "item_3", 3),
        ev("turn.completed", usage=usage(18244, 12032, 1391)),
    ]


def resumed_run() -> list[str]:
    """`codex exec resume <thread> "…"`: the same thread, item ids from item_0 again; the model
    stream fails after one command and the turn fails."""
    down = "stream disconnected before completion: error sending request for url (https://api.example.invalid/v1/responses)"
    return [
        ev("thread.started", thread_id=THREAD),
        ev("turn.started"),
        item("item.completed", "item_0", "reasoning", text="**Checking the change**\n\nLook at the diff before "
             "writing the changelog entry."),
        command("item.started", "item_1", "/bin/bash -lc 'git diff --stat'"),
        command("item.completed", "item_1", "/bin/bash -lc 'git diff --stat'",
                " pricing/price.py | 6 ++++--\n 1 file changed, 4 insertions(+), 2 deletions(-)\n", 0, "completed"),
        ev("error", message=f"Reconnecting... 1/5 ({down})"),
        ev("error", message=f"Reconnecting... 2/5 ({down})"),
        ev("error", message=down),
        ev("turn.failed", error={"message": down}),
    ]


def main() -> None:
    lines = first_run() + resumed_run()
    path = HERE / "exec-json-run.jsonl"
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
    print(f"{path.name}: {len(lines)} lines, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
