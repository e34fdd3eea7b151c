"""Which field a run's intervals resample together: the one the user names with --cluster,
else the natural cluster its dataset's import profile declares (JSFactCheckBench-shaped
data: the question), else none (claim by claim)."""

from __future__ import annotations

from store import Run, Store

NO_CLUSTER = "none"
"""--cluster none: claim by claim, even where the profile declares a cluster."""


def cluster_for(store: Store, run: Run, asked: str | None) -> tuple[str | None, str | None]:
    """(the field to cluster by, the profile that declared it when it is the default)."""
    if asked is not None:
        return (None if asked.strip().lower() == NO_CLUSTER else asked), None
    return natural_cluster(store, run)


def natural_cluster(store: Store, run: Run) -> tuple[str | None, str | None]:
    """The cluster the run's dataset's import profile declares, and the profile's name."""
    from workbench.importers.mapping import MappingError
    from workbench.importers.profiles import load_profile

    options = store.datasets.import_options(run.dataset_id) if run.dataset_id is not None else None
    if not options:
        return None, None
    profile = options.split(" ", 1)[0]  # "PROFILE --map ..." (the latest import)
    try:
        declared = load_profile(profile).cluster
    except MappingError:  # a mapping made on the command line, or a profile since removed
        return None, None
    return (declared, profile) if declared else (None, None)
