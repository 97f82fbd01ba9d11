"""claude-hook-utils: deny a shell command containing rm -rf (its documented HookHandler form)."""

from claude_hook_utils import HookHandler, PreToolUseInput, PreToolUseResponse


class DenyRmRf(HookHandler):
    """Overrides the one hook it needs."""

    def pre_tool_use(self, input: PreToolUseInput) -> PreToolUseResponse | None:
        """Deny rm -rf, allow everything else."""
        if "rm -rf" in str(input.tool_input.get("command", "")):
            return PreToolUseResponse.deny("rm -rf blocked")
        return PreToolUseResponse.allow()


if __name__ == "__main__":
    DenyRmRf().run()
