"""The one exception type the command line turns into a one-line message."""


class WorkbenchError(Exception):
    """A problem the user can fix, said in one line: the CLI prints it and exits 1.

    Domain errors (a bad config file, a run that cannot start, a run that cannot be
    scored, ...) derive from it, so no command can end in a traceback for one of them.
    """
