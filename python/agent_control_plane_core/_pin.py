"""Pinned policies (issue 28): the digest `acp install` wrote beside ACP_POLICY, checked per call.

The installed command carries ACP_POLICY_DIGEST=sha256:<hex> of the rule file as it was at
install. A hook call whose rule file no longer has that digest is a configuration error (the
hook blocks, naming the fix: review the change, then run acp install again). The check costs a
stat and one small JSON read: the digest of the file's current status (mtime, ctime, size, inode)
is kept in the per-user policy cache folder, so the file is hashed only after it changed.
Standard library only; imported by the hook only when ACP_POLICY_DIGEST is set.
"""

from __future__ import annotations

import os

from ._judges import JudgeLoadError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["DIGEST_PREFIX", "check_pinned", "file_digest"]

DIGEST_PREFIX: Final = "sha256:"


def file_digest(path: str) -> str:
    """sha256:<hex> of the file's bytes; OSError when it cannot be read."""
    import hashlib  # only when the file changed: its OpenSSL load is most of a pinned call's cost

    with open(path, "rb") as rules:
        return DIGEST_PREFIX + hashlib.sha256(rules.read()).hexdigest()


def _pin_index(path: str) -> str | None:
    from .policy import _index_name, cache_dir

    folder = cache_dir()
    if folder is None:
        return None
    return os.path.join(folder, _index_name(path).replace(".path.json", ".pin.json"))


def current_digest(path: str) -> str:
    """The rule file's digest now, from the stat-keyed record when the file has not changed."""
    from .policy import _stat_key, _trusted_json, _write_cache

    status = os.stat(path)
    seen = _stat_key(status)
    index = _pin_index(path)
    if index is not None:
        noted = _trusted_json(index)
        if isinstance(noted, dict) and noted.get("path") == path and noted.get("stat") == seen:
            digest = noted.get("digest")
            if isinstance(digest, str):
                return digest
    digest = file_digest(path)
    if index is not None and _stat_key(os.stat(path)) == seen:
        _write_cache(index, {"path": path, "stat": seen, "digest": digest})
    return digest


def check_pinned(path: str, pinned: str, name: str = "ACP_POLICY_DIGEST") -> None:
    """Raise JudgeLoadError (a configuration error) unless the rule file has the pinned digest."""
    if not pinned.startswith(DIGEST_PREFIX):
        raise JudgeLoadError(
            f"{name}={pinned!r} is not a {DIGEST_PREFIX}<hex> digest; run acp install again"
        )
    try:
        now = current_digest(path)
    except OSError as exc:
        raise JudgeLoadError(
            f"policy {path}: cannot read the rule file ({exc.strerror or exc}); restore it, or"
            " run acp install again with the rule file's new path"
        ) from exc
    if now != pinned:
        raise JudgeLoadError(
            f"policy {path} changed since acp install (pinned {pinned}, now {now}): review the"
            " change, then run acp install again to pin the new version (or restore the file)"
        )
