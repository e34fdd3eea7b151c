"""What a model is shown: templates, input settings, evidence windows, and the messages
they make for one claim.

    files.py      the prompts/ folder and the user's prompts_dir: where a template file is
                  found (the user's wins) and read; the one loader of both folders
    templates.py  verdict templates (what `run --prompt` picks), their keys and checks
    tasks.py      task templates (contamination steps, judges, screening, reformulations)
    settings.py   input settings: CONTEXT[+EVIDENCE][+image]
    evidence.py   evidence windows: exactly the text each setting shows (and the TUI shows)
    messages.py   one claim rendered into the messages sent, with the answer's JSON schema
    language.py   the hint that a template exists in the claims' language (jsfactcheck-ja)

What callers use is importable from here (`from workbench.prompting import render`);
the evidence windows from workbench.prompting.evidence. Each name's module is imported when
the name is first asked for: `workbench show` needs the evidence windows, not the template
files and their TOML parser.
"""

from __future__ import annotations

import importlib

_HOMES = {
    **dict.fromkeys(
        [
            "BUILTIN_DIR",
            "TemplateError",
            "TemplateFile",
            "available_templates",
            "read_template_file",
            "template_dirs",
            "template_files",
            "template_kind",
        ],
        "files",
    ),
    **dict.fromkeys(["SAMPLE_CLAIMS", "language_hint"], "language"),
    **dict.fromkeys(
        [
            "RenderedPrompt",
            "answer_schema",
            "describe_need",
            "gold_evidence_text",
            "lacks",
            "marked_response",
            "needs",
            "render",
            "with_images",
        ],
        "messages",
    ),
    **dict.fromkeys(
        [
            "CONTEXTS",
            "EVIDENCE",
            "IMAGE_SUFFIX",
            "PromptError",
            "Setting",
            "all_settings",
            "answer_mode",
            "check_setting",
            "parse_setting",
            "template_settings",
        ],
        "settings",
    ),
    **dict.fromkeys(
        ["KIND_PLACEHOLDERS", "TaskTemplate", "TemplatedTask", "claim_values", "load_task_template", "task_messages"],
        "tasks",
    ),
    **dict.fromkeys(
        ["CLAIM_FIELDS", "DEFAULT_IMAGE_WORDS", "Template", "load_template", "placeholders", "read_template"],
        "templates",
    ),
}
"""Each name -> the module in this package that defines it."""


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "BUILTIN_DIR",
    "CLAIM_FIELDS",
    "CONTEXTS",
    "DEFAULT_IMAGE_WORDS",
    "EVIDENCE",
    "IMAGE_SUFFIX",
    "KIND_PLACEHOLDERS",
    "PromptError",
    "SAMPLE_CLAIMS",
    "RenderedPrompt",
    "Setting",
    "TaskTemplate",
    "Template",
    "TemplateError",
    "TemplateFile",
    "TemplatedTask",
    "all_settings",
    "answer_mode",
    "answer_schema",
    "available_templates",
    "check_setting",
    "claim_values",
    "describe_need",
    "gold_evidence_text",
    "lacks",
    "language_hint",
    "load_task_template",
    "load_template",
    "marked_response",
    "needs",
    "parse_setting",
    "placeholders",
    "read_template",
    "read_template_file",
    "render",
    "task_messages",
    "template_dirs",
    "template_files",
    "template_kind",
    "template_settings",
    "with_images",
]
