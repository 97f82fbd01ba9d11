"""`acp uninstall`: remove exactly the entries `acp install` wrote, every file as it was before.

`acp install` records, per configuration file it writes, the file as it was before (or that it
did not exist) and the digest of what it wrote, in a per-user folder created 0700 (issue 28:
$XDG_STATE_HOME or ~/.local/state, then agent-control-plane-core/installs). While the file still
holds exactly what install wrote, uninstall puts the recorded bytes back (a file install created
is removed, with the folders it created). A file changed since (or installed without a record)
has this host's entries removed from its data and every other value kept; a JSON file is then
written in the installer's form, a TOML file keeps its comments and layout (tomlkit).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .install import InstallError, InstallPlan
from .install._base import _LOCAL, _dump_json, _load_json, _read
from .install._command import _is_ours
from .install._json_nested import _native_events
from .install._plan import _HOSTS, _PLUGIN_HOSTS
from .install._programs import _EXECUTED, _PLUGIN_CONFIG

__all__ = ["UninstallPlan", "config_paths", "plan_uninstall", "recorded_apply", "state_dir"]

_STATE_SUBDIR: Final = ("agent-control-plane-core", "installs")
# The keys a handler of ours carries its command under, per host format (install/'s entries).
_COMMAND_KEYS: Final = ("command", "bash", "to")


def state_dir(environ: Mapping[str, str] | None = None, *, create: bool = False) -> Path:
    """The per-user folder of install records ($XDG_STATE_HOME or ~/.local/state), 0700."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    folder = Path(base, *_STATE_SUBDIR)
    if create:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
    return folder


def _record_path(config: Path, environ: Mapping[str, str] | None) -> Path:
    key = hashlib.sha256(os.path.realpath(config).encode("utf-8", "surrogatepass")).hexdigest()
    return state_dir(environ) / f"{key[:32]}.json"


def _digest(text: str | bytes) -> str:
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()


def _raw(path: Path) -> bytes | None:
    """A file's bytes exactly (line endings too), None when it does not exist."""
    try:
        return Path(os.path.realpath(path)).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def _load_record(config: Path, environ: Mapping[str, str] | None) -> dict[str, Any] | None:
    """The install record of one file, when it is this user's own regular file and well formed."""
    path = _record_path(config, environ)
    try:
        status = path.lstat()
        if path.is_symlink() or not path.is_file() or status.st_uid != os.geteuid():
            return None
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(loaded, dict) or loaded.get("path") != os.path.realpath(config):
        return None
    return loaded


def _missing_dirs(path: Path) -> list[str]:
    """The folders above path that do not exist yet, innermost first."""
    missing = []
    folder = Path(os.path.realpath(path)).parent
    while not folder.exists():
        missing.append(str(folder))
        folder = folder.parent
    return missing


def recorded_apply(plan: InstallPlan, environ: Mapping[str, str] | None = None) -> bool:
    """Apply an install plan and record each file's earlier state, for `acp uninstall`."""
    plans = (plan, *plan.also)
    created = {str(one.path): _missing_dirs(one.path) for one in plans}
    earlier_bytes = {str(one.path): _raw(one.path) for one in plans}
    wrote = plan.apply()
    for one in plans:
        if one.before == one.after:
            continue
        earlier = _load_record(one.path, environ)
        raw = earlier_bytes[str(one.path)]
        record: dict[str, Any] = {
            "path": os.path.realpath(one.path),
            "before": None if raw is None else base64.b64encode(raw).decode("ascii"),
            "dirs": created[str(one.path)],
            "after": _digest(_raw(one.path) or b""),
        }
        if earlier is not None and raw is not None and earlier.get("after") == _digest(raw):
            # A reinstall over our own earlier write: the state before the first install stands.
            record["before"] = earlier.get("before")
            record["dirs"] = earlier.get("dirs", [])
        target = _record_path(one.path, environ)
        state_dir(environ, create=True)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(record, out, ensure_ascii=False)
        os.replace(temporary, target)
    return wrote


def config_paths(
    host: str,
    *,
    scope: str = "project",
    root: Path | None = None,
    home: Path | None = None,
    local: bool = False,
    plugin: bool = False,
) -> list[Path]:
    """Every file `acp install` writes for this host and scope (Cline: one per event)."""
    if host not in _HOSTS:
        known = ", ".join(sorted(_HOSTS))
        raise InstallError(f"no installer for {host!r}: known hosts are {known}")
    if scope == "managed":
        from ._admin_layer import managed_path

        return [managed_path(host)]
    if plugin and host not in _PLUGIN_HOSTS:
        raise InstallError(f"--plugin: {host} has no plugin form")
    project, user, _ = (_PLUGIN_HOSTS if plugin else _HOSTS)[host]
    if local:
        if host not in _LOCAL or scope != "project":
            hosts = ", ".join(sorted(_LOCAL))
            raise InstallError(f"--local: a per-machine project file exists only for {hosts}")
        project = _LOCAL[host]
    base = (root or Path.cwd()) if scope == "project" else (home or Path.home())
    path = base.absolute() / (project if scope == "project" else user)
    if host == "cline" and scope == "user":
        from ._host_shells import documents_dir

        # Where plan_install puts it: the XDG documents folder (HA3-12), not always ~/Documents.
        path = documents_dir(base.absolute()) / Path(user).relative_to("Documents")
    paths = [path]
    if host in _EXECUTED:
        for _, event in _native_events(host, _EXECUTED[host]):
            if event != path.name:
                paths.append(path.with_name(event))
    if host == "kiro" and not plugin:
        from .install._kiro import _KIRO_AGENT_FILE

        paths.append(base.absolute() / _KIRO_AGENT_FILE)  # the 2.x engine's agent file
    return paths


@dataclass(frozen=True)
class UninstallPlan:
    """What uninstalling does to one file: its text now, and after (None: the file is removed)."""

    host: str
    path: Path
    before: str
    after: str | None
    restored: bool
    # The recorded bytes a restore writes back (exactly, line endings included).
    original: bytes | None = None
    dirs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def apply(self, environ: Mapping[str, str] | None = None) -> None:
        """Write (or remove) the file, then the folders install created that are now empty."""
        target = Path(os.path.realpath(self.path))
        try:
            if self.after is None:
                target.unlink()
            elif self.after != self.before or self.original is not None:
                mode = target.stat().st_mode & 0o7777
                temporary = target.with_name(f".{target.name}.{os.getpid()}.acp-uninstall")
                if self.original is not None:
                    temporary.write_bytes(self.original)
                else:
                    temporary.write_text(self.after, encoding="utf-8")
                os.chmod(temporary, mode)
                os.replace(temporary, target)
        except OSError as exc:
            raise InstallError(f"{target}: cannot write ({exc.strerror or exc})") from exc
        for folder in self.dirs:
            try:
                os.rmdir(folder)
            except OSError:
                break  # not empty (something else lives there now) or already gone
        _record_path(self.path, environ).unlink(missing_ok=True)


def plan_uninstall(
    host: str,
    *,
    scope: str = "project",
    root: Path | None = None,
    home: Path | None = None,
    local: bool = False,
    plugin: bool = False,
    environ: Mapping[str, str] | None = None,
) -> list[UninstallPlan]:
    """The files uninstalling this host's entries changes; a file without one is left out."""
    plans = []
    for path in config_paths(host, scope=scope, root=root, home=home, local=local, plugin=plugin):
        text = _read(path)
        if text is None:
            continue
        record = _load_record(path, environ)
        applies, original = _recorded(record, path)
        if applies and record is not None:
            dirs = tuple(str(d) for d in record.get("dirs", []))
            after = None if original is None else original.decode("utf-8", "replace")
            plans.append(
                UninstallPlan(host, path, text, after, restored=True, original=original, dirs=dirs)
            )
            continue
        after = _without_ours(host, path, text)
        if after == text:
            continue
        notes: tuple[str, ...] = ()
        if record is not None:
            notes = (f"{path} changed since acp install: only the {host} entries were removed",)
        plans.append(UninstallPlan(host, path, text, after, restored=False, notes=notes))
    return plans


def _recorded(record: dict[str, Any] | None, path: Path) -> tuple[bool, bytes | None]:
    """Whether the record applies (the file is what install wrote), and the bytes to restore."""
    if record is None or record.get("after") != _digest(_raw(path) or b""):
        return False, None
    before = record.get("before")
    if before is None:
        return True, None  # install created the file
    try:
        return True, base64.b64decode(str(before), validate=True)
    except (binascii.Error, ValueError):
        return False, None


def _without_ours(host: str, path: Path, text: str) -> str | None:
    """The file with this host's entries removed; None when nothing else is left in it."""
    if host == "cline" or path.suffix in (".js", ".ts"):
        # The file is the hook program (Cline) or the packaged plugin: ours whole, or not at all.
        ours = any(_is_ours(line.removeprefix("exec "), host) for line in text.splitlines())
        return None if ours or _plugin_command(text, host) else text
    if path.suffix == ".toml":
        return _toml_without_ours(host, path, text)
    data = _load_json(path, text)
    if not _prune(data, host):
        return text
    if all(_installer_default(key, value) for key, value in data.items()):
        return None
    return _dump_json(path, data, text)


def _installer_default(key: str, value: object) -> bool:
    """Whether a key holds what install sets in a file it creates (_flat_hooks, _kiro_agent)."""
    from .install._kiro import _KIRO_AGENT

    defaults: dict[str, tuple[object, ...]] = {
        "version": (1, "v1"),
        "name": (_KIRO_AGENT,),
        "description": ("The default tools with the agent-control-plane guard on every call",),
        "tools": (["*"],),
    }
    return value in defaults.get(key, ())


def plugin_command_argv(text: str) -> list[str] | None:
    """The hook argv on a packaged plugin's CONFIG line, or None."""
    for line in text.splitlines():
        if line.startswith(_PLUGIN_CONFIG):
            try:
                config = json.loads(line.removeprefix(_PLUGIN_CONFIG).rstrip().rstrip(";"))
            except ValueError:
                return None
            argv = config.get("command") if isinstance(config, dict) else None
            if isinstance(argv, list) and all(isinstance(word, str) for word in argv):
                return argv
            return None
    return None


def _plugin_command(text: str, host: str) -> bool:
    return any(_is_ours(word, host) for word in plugin_command_argv(text) or ())


def _is_handler(node: object, host: str) -> bool:
    """Whether a configuration node is one handler (or Amp rule, Kiro hook) of this host's."""
    if not isinstance(node, Mapping):
        return False
    if any(_is_ours(node.get(key), host) for key in _COMMAND_KEYS):
        return True
    action = node.get("action")
    return isinstance(action, Mapping) and _is_ours(action.get("command"), host)


def _prune(node: Any, host: str) -> bool:
    """Remove this host's handlers below node, then every container emptied by that; changed?"""
    changed = False
    if isinstance(node, list):
        for item in list(node):
            if _is_handler(item, host):
                node.remove(item)
                changed = True
            elif isinstance(item, (dict, list)) and _prune(item, host):
                changed = True
                if _spent(item):
                    node.remove(item)
    elif isinstance(node, dict):
        for key, value in list(node.items()):
            if isinstance(value, (dict, list)) and _prune(value, host):
                changed = True
                if not value:
                    del node[key]
    return changed


def _spent(node: Any) -> bool:
    """A container left with no container in it after a removal: a matcher group without hooks."""
    if isinstance(node, list):
        return not node
    return not any(isinstance(value, (dict, list)) for value in node.values())


def _toml_without_ours(host: str, path: Path, text: str) -> str | None:
    """Codex's config.toml without this host's [[hooks.<Event>.hooks]] handlers, comments kept."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); fix it first") from exc
    hooks: Any = document.get("hooks")
    if not isinstance(hooks, dict):
        return text
    changed = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        for index in reversed(range(len(groups))):
            handlers = groups[index].get("hooks") if isinstance(groups[index], Mapping) else None
            if not isinstance(handlers, list):
                continue
            for inner in reversed(range(len(handlers))):
                if _is_handler(handlers[inner], host):
                    del handlers[inner]
                    changed = True
            if not handlers:
                del groups[index]
        if not groups:
            del hooks[event]
    if not changed:
        return text
    if not hooks:
        document.remove("hooks")
    after = tomlkit.dumps(document)
    return after if after.strip() else None


def handlers(node: Any, host: str) -> Iterator[Mapping[str, Any]]:
    """Every handler of this host's below node (configuration data, as JSON or TOML reads it)."""
    if _is_handler(node, host):
        yield node
    elif isinstance(node, Mapping):
        for value in node.values():
            yield from handlers(value, host)
    elif isinstance(node, list):
        for item in node:
            yield from handlers(item, host)
