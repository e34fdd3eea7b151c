"""The TUI's screens and dialogs (one folder per screen family: metrics/, contamination/)."""
