"""agentseam: deny a shell command containing rm -rf, allow the rest (its documented run(handler))."""

from agentseam import Decision, run


def handler(event):
    """One normalized event in, a Decision out."""
    command = (event.command or "") if event.event == "pre_tool" else ""
    if "rm -rf" in command:
        return Decision.deny("rm -rf blocked")
    return Decision.allow()


run(handler)
