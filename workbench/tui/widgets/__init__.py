"""The TUI's widgets: the claims table and its columns, the filter bar, verdicts, footers."""
