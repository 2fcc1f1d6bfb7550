"""Putting a table back to an older version, only when that version can still be read.

A journal's rollback target can be unusable: a purge's clean-up removed its files, the
table was dropped and made again (its version numbers started over, as on a fresh bucket
at the same URI), or it is the same number of a later table. `why_not_restorable` says which,
so that recovery keeps the table as it is (with a note) instead of committing a version
whose data files are gone, which would leave the store unopenable.
"""

from __future__ import annotations

import warnings
from datetime import timedelta
from typing import Any

#: A version stamped this much after the journal that names it belongs to a later table.
CLOCK_SLACK_S = 2.0


def _version_stamps(ds: Any) -> dict[int, float]:
    """Each version on disk -> its commit time (seconds since the epoch)."""
    # lance gives a naive local datetime; `.timestamp()` reads it back as local time
    return {int(v["version"]): v["timestamp"].timestamp() for v in ds.versions()}


def missing_files(ds: Any, version: int) -> list[str]:
    """The data, deletion and index files that `version` of dataset `ds` needs and that
    are not on disk (paths relative to the table)."""
    old = ds.checkout_version(version)
    present = {str(p) for batch in ds.all_files() for p in batch.column("path").to_pylist()}
    wanted: list[str] = []
    for fragment in old.get_fragments():
        meta = fragment.metadata
        wanted.extend(f"data/{f.path}" for f in meta.files if f.base_id is None)
        if meta.deletion_file is not None and meta.deletion_file.base_id is None:
            wanted.append(meta.deletion_file.path(meta.id))
    missing = [p for p in wanted if p not in present]
    folders = {p.split("/")[1] for p in present if p.startswith("_indices/")}
    missing.extend(f"_indices/{segment.uuid}/" for index in old.describe_indices()
                   for segment in index.segments
                   if segment.base_id is None and str(segment.uuid) not in folders)
    return missing


def why_not_ours(table: Any, version: int, *, written_before: float | None = None
                 ) -> str | None:
    """Why `version` of LanceDB table `table` is not the version a journal written at
    `written_before` recorded (gone from disk, or committed after the journal: the table
    was dropped and made again since), or None when it is."""
    stamps = _version_stamps(table.to_lance())
    if version not in stamps:
        return (f"its version {version} is no longer on disk (the table was cleaned up, "
                f"dropped or made again since)")
    if written_before is not None and stamps[version] > written_before + CLOCK_SLACK_S:
        return (f"its version {version} was written after the interrupted write started "
                f"(the table was dropped and made again since)")
    return None


def why_not_restorable(table: Any, version: int, *, written_before: float | None = None
                       ) -> str | None:
    """Why LanceDB table `table` cannot be put back to `version`, or None when it can: not
    the journal's version (`why_not_ours`), or files it needs are gone."""
    why = why_not_ours(table, version, written_before=written_before)
    if why is not None:
        return why
    missing = missing_files(table.to_lance(), version)
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        return f"version {version} needs files that are gone ({missing[0]}{more})"
    return None


def remove_old_versions(table: Any) -> int:
    """Remove every version of LanceDB table `table` but the latest from disk, with the
    files only they use (old index files included); returns how many versions went. Run
    it only once the latest version is committed and no journal points at older ones."""
    with warnings.catch_warnings():
        # LanceDB warns that readers of older versions fail: dropping them is the point
        warnings.simplefilter("ignore", UserWarning)
        stats = table.to_lance().cleanup_old_versions(older_than=timedelta(0),
                                                      delete_unverified=True)
    table.checkout_latest()
    return int(stats.old_versions)
