"""A sample's conversation in inspect_ai's chat messages: the prompt rendered again from the
run's template and setting, a search run's steps as tool calls and tool results, and the
answer. inspect_ai is imported inside each function (the `inspect` extra)."""

from __future__ import annotations

import json
from typing import Any

from store import Claim, Prediction, Run

IMAGE_PLACEHOLDER = "[image {what}: not carried into the eval log]"


def prompt_messages(claim: Claim, template, run: Run) -> tuple[list, str | None]:
    """The messages the run sent for this claim, and None; without a template (an imported
    run, a template gone or broken) or for a claim that no longer renders in the run's
    setting, one user message holding the claim text, and why."""
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    from workbench.prompting import PromptError, parse_setting, render

    if template is None or not run.setting:
        return [ChatMessageUser(content=claim.text)], None  # the log's header says why, once
    try:
        rendered = render(claim, template, parse_setting(run.setting), run.params.get("json"))
    except (PromptError, ValueError) as error:  # the claim or the setting changed since the run
        return [
            ChatMessageUser(content=claim.text)
        ], f"the input is the claim text: the prompt cannot be rendered again ({error})"
    made = {"system": ChatMessageSystem, "user": ChatMessageUser}
    return [made[m["role"]](content=_content(m["content"])) for m in rendered.messages], None


def _content(content: Any) -> str | list:
    """Text stays text; image parts become a placeholder (the pictures stay in the database)."""
    from inspect_ai.model import ContentText

    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if part.get("type") == "text":
            parts.append(ContentText(text=part["text"]))
        else:
            what = part.get("url") or f"sha256 {part.get('sha256')}"
            parts.append(ContentText(text=IMAGE_PLACEHOLDER.format(what=what)))
    return parts


def trajectory_messages(steps: list) -> list:
    """A search run's steps: what the model wrote with each tool call, then what the tool
    gave back (the stored results, listed; the final answer step is the answer itself)."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool
    from inspect_ai.tool import ToolCall

    messages = []
    for step in steps:
        if step.kind == "answer":
            continue
        call_id = f"step-{step.step}"
        function = step.tool or step.kind
        call = ToolCall(id=call_id, function=function, arguments=_arguments(step))
        messages.append(ChatMessageAssistant(content=step.text or "", tool_calls=[call]))
        messages.append(ChatMessageTool(content=_results_text(step), tool_call_id=call_id, function=function))
    return messages


def _arguments(step) -> dict:
    if step.arguments:
        try:
            found = json.loads(step.arguments)
        except ValueError:
            return {"raw": step.arguments}
        return found if isinstance(found, dict) else {"value": found}
    return {"query": step.query} if step.query else {}


def _results_text(step) -> str:
    lines = [step.note] if step.note else []
    for result in step.results:
        head = f"[{result.rank}] {result.title or ''} {result.url or ''}".rstrip()
        if result.dropped:
            head += f" (kept from the model: {result.dropped})"
        lines.append(head)
        if result.snippet:
            lines.append(result.snippet)
    return "\n".join(lines) or "(no results)"


def answer_message(prediction: Prediction, model: str):
    """The model's final answer as it came back (empty for an error)."""
    from inspect_ai.model import ChatMessageAssistant

    return ChatMessageAssistant(content=prediction.raw_output or "", model=model)
