"""Every command the README and the runbooks show is run as far as it can go without a long run.

The commands are taken from the documents themselves: every fenced `sh`/`console` block (a plain
fence too, when it starts with a command) and every inline `pagelab ...` in backquotes. Then:

- a fenced `pagelab` command is parsed by pagelab's own argument parser (an unknown flag or a value
  its type refuses fails here), and then checked by the code the command itself runs before it
  starts anything: a new sweep's options and profile (every knob and the rules between them, as
  `--plan-only` checks them before it writes), a resumed sweep's options, a notebook report's
  parameter names, a server's settings;
- an inline `pagelab ...` is often a fragment (`pagelab stats DIR`, `pagelab tpcc load|run`): its
  command must exist and every flag it names must be one of that command's (as `--help` lists
  them); a profile, `--set` or `-p` in it is checked as above;
- `make TARGET` must be a target of the Makefile, with a profile that exists;
- `papermill NOTEBOOK OUT -p NAME VALUE -y '{...}'` must name an existing notebook and only its
  parameters;
- `.venv/bin/python bench/X.py --flags` is parsed by the bench's own parser (all of them in one
  subprocess, stopped right after parsing);
- anything else is a program pagelab does not own and is listed in NOT_CHECKED with the reason;
  a command of a program in neither list fails the test until it is checked or listed.

Shell syntax is read as far as the documents use it: `\\` continuations, `;`, `&&`, `&`, `|`,
redirections, comments, `VAR=value` assignments and `$VAR` in the same block. Placeholders in
capitals (DIR, BUNDLE, NAME) and `<...>` stand for values the reader supplies.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from pagelab.cli import build_parser as pagelab_parser
from pagelab.common.errors import UsageError
from tests.conftest import REPO_ROOT

DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "runbooks").glob("*.md"))]
SHELL_FENCES = {"sh", "bash", "shell", "console"}
# Programs pagelab does not own, each with why its command is not run here.
NOT_CHECKED = {
    "mariadb": "talks to the server the steps before it started; a server test runs the client",
    "iostat": "sysstat's monitor, run as the lab ran it; pagelab's parser reads its output (tests/parse)",
    "sleep": "shell", "kill": "shell", "wait": "shell", "for": "shell", "do": "shell", "done": "shell",
    "cd": "shell", "mkdir": "shell", "until": "shell", "rm": "shell", "grep": "shell",
    "sync": "the kernel's flush of pending writes, as the sweep's own (os.sync) before each run",
    "sudo": "installs OS packages as root (make setup's own step is tested in tests/setup)",
    "git": "clones a third-party build (tpcc-mysql) for the fidelity bench",
    "squeue": "Slurm's own command", "sacct": "Slurm's own command", "srun": "Slurm's own command",
    "conda": "the optional conda environment; environment.yml is checked by tests/test_components.py",
    "pytest": "runs tests: the suite itself",
    "tail": "follows a log file a detached sweep writes",
    "cp": "shell: the README's copy of the shipped sweep's fixture is run, with its pagelab lines, by "
          "tests/test_shipped_bundle.py",
}
# Programs that only start the command after them, which is checked in their place.
LAUNCHERS = {"setsid"}
# What a placeholder stands for when a command is checked.
PLACEHOLDERS = {"NAME": "quick", "MODE": "statements", "KNOB=VALUE": "repeats=3", "N": "1", "i": "0",
                "INDEX": "0", "PROFILE": "quick"}
DIRECTORY_PLACEHOLDER = re.compile(r"^(DIR(_A|_B)?|BUNDLE|A|B|OUT|FILE\.md|NOTEBOOK)$|<[^>]+>")


@dataclass
class Command:
    where: str  # file and line, for the failure message
    words: list[str]
    fenced: bool


# --- reading the documents --------------------------------------------------------------------------------


def _without_comment(line: str) -> str:
    """The line up to a `#` that starts a shell comment (outside quotes, after a blank)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return line[:index]
    return line


def _statements(text: str) -> list[list[str]]:
    """The simple commands of a shell text: words, split at ; && || & | and newlines, without
    redirections and comments; `VAR=value` assignments applied to later `$VAR`."""
    text = re.sub(r"\\\n", " ", "\n".join(_without_comment(line) for line in text.splitlines()))
    text = re.sub(r"(?<=\s)\d+(?=[<>])", "", text)  # `2>&1`: the descriptor's number is no word
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""  # removed above: shlex's would swallow the line's end, joining two commands
    variables: dict[str, str] = {}
    statements, words, redirected = [], [], False
    for token in lexer:
        if token and set(token) <= set(";&|\n"):
            if words:
                statements.append(words)
            words, redirected = [], False
            continue
        if token and set(token) <= set("<>&") and set(token) & set("<>"):  # >, <, >&, &>
            redirected = True
            continue
        if redirected:  # the file a redirection names
            redirected = False
            continue
        token = re.sub(r"\$\{?(\w+)\}?", lambda m: variables.get(m.group(1), m.group(0)), token)
        assignment = re.fullmatch(r"([A-Za-z_]\w*)=(.*)", token)
        if assignment and not words:
            variables[assignment.group(1)] = assignment.group(2)
            continue
        words.append(token)
    if words:
        statements.append(words)
    return statements


def _documented_commands() -> list[Command]:
    commands = []
    for path in DOCUMENTS:
        text = path.read_text()
        name = path.relative_to(REPO_ROOT)
        # a fence may be indented, inside a list item
        for fence in re.finditer(r"^([ \t]*)```(\w*)\n(.*?)^[ \t]*```", text, re.M | re.S):
            language, body = fence.group(2), textwrap.dedent(fence.group(3))
            starts_with_a_command = re.match(r"\s*(\.venv/bin/|pagelab |make )", body)
            if language not in SHELL_FENCES and not (language == "" and starts_with_a_command):
                continue
            line = text[:fence.start()].count("\n") + 2
            if language == "console":  # only the prompt lines are commands
                body = "\n".join(row[2:] for row in body.splitlines() if row.startswith("$ "))
            for words in _statements(body):
                while words[0] in LAUNCHERS:  # `setsid make demo ...` is checked as `make demo ...`
                    words = words[1:]
                commands.append(Command(f"{name}:{line}", words, fenced=True))
        for inline in re.finditer(r"`((?:\.venv/bin/)?pagelab\s[^`]*)`", text):
            fragment = " ".join(inline.group(1).split())
            if re.match(r"(\.venv/bin/)?pagelab \S+:", fragment):  # a message pagelab prints, not a command
                continue
            line = text[:inline.start()].count("\n") + 1
            for alternative in _alternatives(fragment):
                commands.append(Command(f"{name}:{line}", shlex.split(alternative), fenced=False))
    return commands


def _alternatives(fragment: str) -> list[str]:
    """`pagelab tpcc load|run` is two commands."""
    match = re.search(r"\b([\w-]+)\|([\w-]+)\b", fragment)
    if not match:
        return [fragment]
    return [fragment[:match.start()] + choice + fragment[match.end():] for choice in match.groups()]


COMMANDS = _documented_commands()


@functools.lru_cache(maxsize=1)
def build_parser() -> argparse.ArgumentParser:
    return pagelab_parser()  # built once: parse_args leaves it as it was


# --- checking a pagelab command -----------------------------------------------------------------------------


def _placeholder(word: str, directory: Path) -> str:
    if word in PLACEHOLDERS:
        return PLACEHOLDERS[word]
    if DIRECTORY_PLACEHOLDER.search(word):
        return str(directory / DIRECTORY_PLACEHOLDER.sub("x", word))
    return word


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _command_parser(words: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The (sub)parser the words name, and the words after the command's name."""
    parser, rest = build_parser(), list(words)
    while rest and rest[0] in _subparsers(parser):
        parser = _subparsers(parser)[rest.pop(0)]
    return parser, rest


def _parse(words: list[str]) -> argparse.Namespace | None:
    """pagelab's parser over the words; None for --help (which printed); a refused word fails."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return build_parser().parse_args(words)
    except SystemExit as exit_:
        assert exit_.code == 0, err.getvalue().strip().splitlines()[-1]
        return None


def _check_in_depth(args: argparse.Namespace) -> None:
    """What the command itself checks before it starts anything."""
    from pagelab.cli import sweep

    if args.command == "sweep":
        sweep.check_sweep_arguments(args)
        if not args.resume:
            with contextlib.redirect_stderr(io.StringIO()):  # its notes
                sweep.checked_profile(args)
    elif args.command == "report" and args.target.endswith(".ipynb"):
        from pagelab.report.notebook_report import checked_parameters

        checked_parameters(REPO_ROOT / args.target, args.parameter)
    elif args.command == "server" and hasattr(args, "buffer_pool"):
        from pagelab.cli.common import settings_from

        settings_from(args, None)


def _check_fragment(words: list[str]) -> None:
    """An inline fragment: its command exists, each flag it names is the command's, and a profile,
    --set or -p in it is checked as in a full command."""
    parser, rest = _command_parser(words)
    flags = {option for action in parser._actions for option in action.option_strings}
    for word in rest:
        flag = word.split("=")[0]
        assert not word.startswith("-") or flag in flags, f"{flag} is not an option of `{parser.prog}`"
    if re.fullmatch(r"[A-Z_]+", rest[0] if rest else "") and rest[0] == "COMMAND":
        return
    if parser.prog == "pagelab sweep" and any(word in ("--profile", "--set") for word in rest):
        values = [word for word in rest if not re.fullmatch(r"[A-Z_]+", word)]
        args = _parse(["sweep", *values])
        if args is not None:
            _check_in_depth(args)
    if parser.prog == "pagelab report" and "-p" in rest:
        args = _parse(["report", *rest])
        _check_in_depth(args)


def check_pagelab(command: Command, directory: Path) -> None:
    words = [_placeholder(word, directory) for word in command.words[1:]]
    if not command.fenced:
        _check_fragment(words)
        return
    args = _parse(words)
    if args is not None:
        _check_in_depth(args)


# --- the other commands ---------------------------------------------------------------------------------


def _make_targets() -> set[str]:
    return set(re.findall(r"^([\w-]+):", (REPO_ROOT / "Makefile").read_text(), re.M))


def check_make(command: Command) -> None:
    words = [word for word in command.words[1:] if not word.startswith("LIBS=")]
    for word in words:
        variable = re.fullmatch(r"(\w+)=(.*)", word)
        if variable and variable.group(1) == "PROFILE":
            from pagelab.sweep.profiles import load_profile

            load_profile(variable.group(2))
        elif not variable:
            assert word in _make_targets(), f"make {word}: the Makefile has no such target"


def check_papermill(command: Command) -> None:
    from pagelab.report.notebook_report import checked_parameters

    words = command.words[1:]
    notebook = REPO_ROOT / words[0]
    parameters, index = [], 2
    while index < len(words):
        if words[index] == "-p":
            parameters.append(words[index + 1: index + 3])
            index += 3
        elif words[index] == "-y":
            import yaml

            parameters += [[name, json.dumps(value)] for name, value in yaml.safe_load(words[index + 1]).items()]
            index += 2
        elif words[index] == "-k":
            assert words[index + 1] == "pagelab", "the notebooks run on the pagelab kernel"
            index += 2
        else:
            raise AssertionError(f"papermill {words[index]}: not an option the documents explain")
    checked_parameters(notebook, parameters)


def program(command: Command) -> str:
    first = command.words[0]
    if first.endswith("/python") and command.words[1:2] == ["-m"]:
        return command.words[2]
    return Path(first).name if first.startswith(".venv/bin/") else first


# --- the tests ------------------------------------------------------------------------------------------


def test_the_documents_show_commands():
    programs = {program(command) for command in COMMANDS}
    assert {"pagelab", "make", "papermill", "python"} <= programs, programs
    assert sum(program(command) == "pagelab" and command.fenced for command in COMMANDS) >= 20


@pytest.mark.parametrize("command", [c for c in COMMANDS if program(c) == "pagelab"],
                         ids=lambda c: f"{c.where} {' '.join(c.words[1:4])}")
def test_every_documented_pagelab_command_is_accepted(command, tmp_path):
    try:
        check_pagelab(command, tmp_path)
    except UsageError as refused:
        pytest.fail(f"{command.where}: `{' '.join(command.words)}` is refused: {refused}")
    except AssertionError as refused:
        pytest.fail(f"{command.where}: `{' '.join(command.words)}` is refused: {refused}")


@pytest.mark.parametrize("command", [c for c in COMMANDS if program(c) in ("make", "papermill")],
                         ids=lambda c: f"{c.where} {' '.join(c.words[:3])}")
def test_every_documented_make_and_papermill_command_is_accepted(command):
    try:
        (check_make if program(command) == "make" else check_papermill)(command)
    except (UsageError, AssertionError) as refused:
        pytest.fail(f"{command.where}: `{' '.join(command.words)}` is refused: {refused}")


# Run in one interpreter, one bench after another (their imports shared): each bench's own argument
# parser reads the documented flags, and the bench stops right after parsing (a refused flag exits
# 2, naming it). Prints {index: what the parser said on refusing, or ""} as JSON.
PARSE_ONLY = """
import argparse, contextlib, io, json, runpy, sys
original = argparse.ArgumentParser.parse_args
def parse_then_stop(self, args=None, namespace=None):
    original(self, args, namespace)
    raise SystemExit(0)
argparse.ArgumentParser.parse_args = parse_then_stop
said = {}
for index, (script, *flags) in enumerate(json.loads(sys.argv[1])):
    sys.argv = [script, *flags]
    sys.path.insert(0, script.rsplit("/", 1)[0])  # as `python bench/X.py` has it: the bench's own helpers
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(script, run_name="__main__")
        said[index] = "it ran past its argument parsing"
    except SystemExit as exit_:
        said[index] = "" if exit_.code in (0, None) else errors.getvalue().strip()[-400:]
    sys.path.pop(0)
print(json.dumps(said))
"""


def test_every_documented_bench_command_is_accepted():
    benches = []
    for command in (c for c in COMMANDS if program(c) == "python" and c.words[1:2] != ["-m"]):
        script = REPO_ROOT / command.words[1]
        assert script.is_file(), f"{command.where}: {command.words[1]} does not exist"
        if "argparse" not in script.read_text() and "from arguments import" not in script.read_text():
            assert not command.words[2:], f"{command.where}: {command.words[1]} takes no options"
            continue  # nothing to parse; running it would be the bench itself
        benches.append(command)
    assert benches, "the documents show bench commands"
    done = subprocess.run([sys.executable, "-c", PARSE_ONLY, json.dumps([[str(REPO_ROOT / c.words[1]), *c.words[2:]]
                                                                      for c in benches])],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    refused = [f"{c.where}: `{' '.join(c.words)}`: {said[str(i)]}" for i, c in enumerate(benches) if said[str(i)]]
    assert not refused, "\n".join(refused)


def test_every_other_command_is_listed_with_why_it_is_not_run():
    owned = {"pagelab", "make", "papermill", "python"}
    unlisted = {f"{c.where}: {program(c)}" for c in COMMANDS if program(c) not in owned | set(NOT_CHECKED)}
    assert not unlisted, "check these commands, or list their program in NOT_CHECKED with the reason: " + \
        ", ".join(sorted(unlisted))
    for command in (c for c in COMMANDS if program(c) == "pytest"):
        for word in command.words[3:]:
            assert word.startswith("-") or (REPO_ROOT / word).exists(), f"{command.where}: no {word}"
