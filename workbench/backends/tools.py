"""Tool calling, from the workbench's neutral messages to each provider's and back.

Neutral forms (what the search loop writes, what the cache key holds):

    tools:      [{"name": "search", "description": "...", "parameters": {JSON schema}}]
    a call:     {"role": "assistant", "content": "...", "tool_calls": [{"id", "name", "arguments"}]}
    its result: {"role": "tool", "tool_call_id": "...", "name": "search", "content": "..."}

`arguments` is the JSON text the model wrote (kept as written: a malformed one is the
model's mistake to be told about, not ours to mend).
"""

from __future__ import annotations

import json
from typing import Any

from workbench.backends.base import ToolCall


def has_tool_turns(messages: list[dict]) -> bool:
    return any(m.get("role") == "tool" or m.get("tool_calls") for m in messages)


def openai_tools(tools: list[dict]) -> list[dict]:
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]},
        }
        for t in tools
    ]


def openai_tool_turns(messages: list[dict]) -> list[dict]:
    converted = []
    for message in messages:
        if message.get("tool_calls"):
            converted.append(
                {
                    "role": "assistant",
                    "content": message.get("content") or None,
                    "tool_calls": [
                        {
                            "id": c["id"],
                            "type": "function",
                            "function": {"name": c["name"], "arguments": c["arguments"]},
                        }
                        for c in message["tool_calls"]
                    ],
                }
            )
        elif message.get("role") == "tool":
            converted.append({"role": "tool", "tool_call_id": message["tool_call_id"], "content": message["content"]})
        else:
            converted.append(message)
    return converted


def openai_tool_calls(message: dict) -> tuple[ToolCall, ...]:
    calls = message.get("tool_calls") or []
    found = []
    for n, call in enumerate(calls if isinstance(calls, list) else []):
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            arguments = function.get("arguments")
            found.append(
                ToolCall(
                    str(call.get("id") or f"call_{n}"),
                    function["name"],
                    arguments if isinstance(arguments, str) else json.dumps(arguments),
                )
            )
    return tuple(found)


def anthropic_tools(tools: list[dict]) -> list[dict]:
    return [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]} for t in tools]


def anthropic_tool_turns(messages: list[dict]) -> list[dict]:
    """Assistant calls become tool_use blocks; consecutive tool results one user turn, and
    a user message right after them (the pictures a search run's model asked to see) joins
    that turn after the results, as the Messages API wants."""
    converted: list[dict] = []
    for message in messages:
        last = converted[-1] if converted else None
        if message.get("role") == "user" and _tool_results(last):
            content = message["content"]
            last["content"].extend(content if isinstance(content, list) else [{"type": "text", "text": content}])
            continue
        if message.get("tool_calls"):
            blocks: list[dict[str, Any]] = (
                [{"type": "text", "text": message["content"]}] if message.get("content") else []
            )
            blocks += [
                {"type": "tool_use", "id": c["id"], "name": c["name"], "input": _input(c["arguments"])}
                for c in message["tool_calls"]
            ]
            converted.append({"role": "assistant", "content": blocks})
        elif message.get("role") == "tool":
            block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": message["content"]}
            if _tool_results(last):
                last["content"].append(block)
            else:
                converted.append({"role": "user", "content": [block]})
        else:
            converted.append(message)
    return converted


def _tool_results(message: dict | None) -> bool:
    """A user turn made of tool results (nothing else yet)."""
    return (
        message is not None
        and message["role"] == "user"
        and isinstance(message["content"], list)
        and bool(message["content"])
        and all(b.get("type") == "tool_result" for b in message["content"])
    )


def anthropic_tool_calls(content: list) -> tuple[ToolCall, ...]:
    return tuple(
        ToolCall(
            str(getattr(block, "id", "")),
            str(getattr(block, "name", "")),
            json.dumps(getattr(block, "input", {}) or {}),
        )
        for block in content
        if getattr(block, "type", None) == "tool_use"
    )


def _input(arguments: str) -> dict:
    try:
        value = json.loads(arguments)
    except ValueError:
        return {"malformed": arguments}
    return value if isinstance(value, dict) else {"value": value}
