"""cchooks: deny a shell command containing rm -rf, allow the rest (its documented PreToolUse form)."""

from cchooks import PreToolUseContext, create_context

context = create_context()
assert isinstance(context, PreToolUseContext)
if context.tool_name == "Bash" and "rm -rf" in context.tool_input.get("command", ""):
    context.output.deny(reason="rm -rf blocked")
else:
    context.output.allow()
