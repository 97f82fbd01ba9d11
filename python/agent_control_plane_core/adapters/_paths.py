"""Every file a multi-file tool call changes, read from the input key its declaration names.

A host declares, per native tool, the input key that names the files the call changes
(host.schema.json derived_paths): a patch text whose headers name them, or a list of paths. The
first file becomes the canonical path key (file_path) and every file the list in file_paths
(PatchInput), so a rule on Edit or Write judges each one and denies when any is denied.
"""

from __future__ import annotations

import re

from .._generated.constants import ModeledTools, PatchInputFields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = ["derive_paths"]

# The patch envelope's file headers (Codex's apply-patch grammar, which Droid's ApplyPatch and
# Auggie's apply_patch parse too): "*** Add File: p", "*** Update File: p", "*** Delete File: p",
# and "*** Move to: p" after an update, which names a second file the call writes.
_HEADER: Final = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$", re.M)
_ADD: Final = "Add File"
PATCH: Final = "patch"
LIST: Final = "list"
# derived_paths key "*": the patch text is in whichever input key holds one.
ANY_KEY: Final = "*"


def derive_paths(tool_input: dict[str, Any], key: str, form: str) -> str | None:
    """Add file_path and file_paths from tool_input[key]; return Write for an add-only patch.

    Keys the input already has are kept (a rename never overwrites). Nothing is added when the
    key holds no file; None unless every file of a patch is added (a Write, not an Edit).
    """
    value = tool_input.get(key)
    if key == ANY_KEY and form == PATCH:
        # The patch's key is not known (a third-party report): every string value is read.
        value = "\n".join(text for text in tool_input.values() if isinstance(text, str))
    paths: list[str] = []
    only_adds = False
    if form == PATCH and isinstance(value, str):
        operations = set()
        for found in _HEADER.finditer(value):
            operation, path = found.groups()
            operations.add(operation)
            if path not in paths:
                paths.append(path)
        only_adds = operations == {_ADD}
    elif form == LIST and isinstance(value, list):
        for path in value:
            if isinstance(path, str) and path and path not in paths:
                paths.append(path)
    if not paths:
        return None
    tool_input.setdefault(PatchInputFields.FILE_PATH, paths[0])
    tool_input.setdefault(PatchInputFields.FILE_PATHS, paths)
    return ModeledTools.WRITE if only_adds else None
