"""The shell splitter's two entries: a command line and an argument vector."""

from __future__ import annotations

from agent_control_plane_core.shell import PARSE_LIMIT_CHARS, parse_argv, parse_script


def test_an_argument_vector_is_one_simple_command_with_its_words_as_they_are() -> None:
    parsed = parse_argv(["git", "push", "--force", "a b"])
    assert [command.argv for command in parsed.commands] == [("git", "push", "--force", "a b")]
    assert parsed.problems == ()


def test_a_line_past_the_limit_is_split_up_to_it_and_says_the_rest_was_not() -> None:
    text = "ls; " + "x" * (PARSE_LIMIT_CHARS + 10)
    parsed = parse_script(text)
    assert parsed.commands[0].argv[0] == "ls"
    assert any("the rest was not split" in problem for problem in parsed.problems)


def test_more_simple_commands_than_the_limit_stop_the_split_and_say_so() -> None:
    from agent_control_plane_core.shell._model import MAX_COMMANDS

    parsed = parse_script("; ".join(["ls"] * (MAX_COMMANDS + 5)))
    assert len(parsed.commands) == MAX_COMMANDS
    assert any("the rest was not split" in problem for problem in parsed.problems)


def test_an_argument_vector_whose_script_is_past_the_limit_stops_and_says_so() -> None:
    from agent_control_plane_core.shell._model import MAX_COMMANDS

    parsed = parse_argv(["sh", "-c", "; ".join(["ls"] * (MAX_COMMANDS + 5))])
    assert len(parsed.commands) == MAX_COMMANDS
    assert any("the rest was not split" in problem for problem in parsed.problems)
