"""The fact-check workbench: evaluate LLM fact-checkers from the terminal."""

__version__ = "0.1.0"
