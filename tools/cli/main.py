"""The `rulecraft` command line: parses arguments, calls the library, prints, and picks the exit code.

Exit codes (the contract in DESIGN.md): 0 clean, 1 diagnostics, 2 usage (and verbs not
built yet), 3 internal error, 130 interrupted. Each verb is a `cmd_<verb>(args) -> int` in
`commands.py` with its arguments in `options.py`, registered in `VERBS` here.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import re
import sys
from typing import Callable, NamedTuple, Sequence

from rulecraft.tools.cli.codes import (EPILOG, ctrl_c_noted, EXIT_BROKEN_PIPE, EXIT_DIAGNOSTICS, EXIT_INTERNAL,  # noqa: F401
                                       EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, PROG, internal_error)
from rulecraft.tools.cli.commands import (cmd_aid, cmd_book, cmd_compare, cmd_diff, cmd_list, cmd_lsp, cmd_play,
                                          cmd_render, cmd_replay, cmd_schema, cmd_sheets, cmd_simulate, cmd_studio,
                                          cmd_test, cmd_validate)
from rulecraft.tools.cli.options import (seed_problem, args_aid, args_book, args_compare, args_diff, args_list, args_lsp, args_play,
                                         args_render, args_replay, args_schema, args_sheets, args_simulate,
                                         args_studio, args_test, args_validate)

# ---------------------------------------------------------------------------------------
# the verb table


class Verb(NamedTuple):
    name: str
    summary: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str = ""


VERBS: tuple[Verb, ...] = (
    Verb("list", "list the bundled rulesets: name and title", args_list, cmd_list,
         "Lists the bundled rulesets, one per line: name, then title. The small examples "
         "(rulesets/examples) follow after a blank line and an 'examples:' header."),
    Verb("validate", "check ruleset files and print every problem found", args_validate, cmd_validate,
         "Loads each RULESET and prints all its diagnostics. Exit 0 when all are valid "
         "(warnings allowed), 1 when any has an error, 2 on a usage error."),
    Verb("play", "play a game: agents or people at the terminal make the decisions", args_play, cmd_play,
         "Plays one game of RULESET and prints what happens. Every seat is a random bot unless "
         "--agent says otherwise, e.g. '--agent human --agent random'. Exit 0 when the game ends, "
         "1 on an error in the rules, 130 when a person stops it."),
    Verb("replay", "replay a game log and verify it reaches the same final state", args_replay, cmd_replay,
         "Re-runs the game in LOG from its seed and decisions and checks every record. Exit 0 when "
         "identical, 1 at the first difference (or for an unfinished log, unless --partial)."),
    Verb("test", "run scenario files: a designer's rule tests", args_test, cmd_test,
         "Runs each SCENARIO (docs/testing.md: a position, answers and fixed dice, and what must hold) and prints "
         "one line per scenario: PASS, FAIL or ERROR (with the first problem), XFAIL (a known problem, as its "
         "'xfail' says) or XPASS (marked xfail but passing). Exit 0 when all pass, 1 when any fails, 2 on a "
         "usage error."),
    Verb("render", "draw a ruleset's sequences as a flowchart", args_render, cmd_render),
    Verb("sheets", "write printable sequence sheets (PDF)", args_sheets, cmd_sheets),
    Verb("book", "write the rules as a readable HTML page (or a PDF)", args_book, cmd_book),
    Verb("aid", "write a one- or two-page player aid (PDF)", args_aid, cmd_aid,
         "The round and turn a line per phase, the key numbers, the reference tables and dice, and how "
         "to win, in words, at 9 pt or more. Printed by headless Chromium (exit 2 with a hint without it)."),
    Verb("simulate", "run many games and report statistics", args_simulate, cmd_simulate),
    Verb("compare", "simulate two rulesets and show what differs", args_compare, cmd_compare),
    Verb("diff", "show the rule differences between two rulesets", args_diff, cmd_diff,
         "Compares RULESET_A with RULESET_B section by section; steps are named by their sheet numbers and "
         "matched by id and content. Exit 0 when they are the same, 1 when they differ (as diff(1)), 2 on a "
         "usage error or a ruleset that does not load."),
    Verb("schema", "write the JSON Schema of ruleset files, for editors", args_schema, cmd_schema,
         "Writes the JSON Schema that ruleset files follow (to standard output, or -o FILE), so an "
         "editor's YAML support (yaml-language-server) completes and checks keys. See docs/editors.md."),
    Verb("lsp", "serve an editor as a language server over standard input and output", args_lsp, cmd_lsp,
         "A Language Server Protocol server on stdin/stdout: the full validator's diagnostics as you "
         "type, completion inside the rules language, hover, go to definition, an outline of the "
         "sequences and quick fixes. An editor starts it; see docs/editors.md for VS Code, Neovim and Helix."),
    Verb("studio", "edit rulesets in the browser: problems, chart and printed pages as you type", args_studio,
         cmd_studio,
         "Serves a page on 127.0.0.1 (a free port unless --port) and prints its URL with an access token: the "
         "folder's rulesets in an editor with the language server's checks, the chart of the sequence under the "
         "cursor, the player aid, book and sheets, and the diff with another ruleset. Ctrl-C stops it. "
         "See docs/studio.md."),
)


class _VersionAction(argparse.Action):
    """--version, reading the installed version only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{PROG} {_version()}")
        parser.exit()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("rulecraft")
    except Exception:
        return "unknown"


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def _format_action(self, action: argparse.Action) -> str:
        text = super()._format_action(action)
        if isinstance(action, argparse._SubParsersAction):
            text = text.split("\n", 1)[1]  # drop the bare 'VERB' line above the list of verbs
        return text


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        """Usage errors exit 2, with a 'did you mean' for a mistyped verb."""
        m = re.search(r"invalid choice: '([^']*)'", message) if "invalid choice" in message else None
        if m and self.prog == PROG:
            import difflib

            close = difflib.get_close_matches(m.group(1), [v.name for v in VERBS], n=1, cutoff=0.6)
            message = f"unknown verb '{m.group(1)}'" + (f"; did you mean '{close[0]}'?" if close else "")
            message += " (see 'rulecraft --help')"
        elif "--help" not in message:
            message += f" (see '{self.prog} --help')"
        # one line, as every other error: the usage block above it told nothing the --help does not
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="rulecraft: a rules-as-data engine for tabletop games.",
        epilog=EPILOG,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", title="verbs")
    sub.required = True
    for v in VERBS:
        p = sub.add_parser(v.name, help=v.summary, description=v.description or v.summary[:1].upper() + v.summary[1:] + ".")
        v.add_arguments(p)
        p.set_defaults(_run=v.run)
    return parser


# ---------------------------------------------------------------------------------------
# entry point


def main(argv: Sequence[str] | None = None) -> int:
    from rulecraft.inputs import forget_inputs

    forget_inputs()  # a command's inputs are its own, before and after (tests and embedders call main() in one process)
    _closed_streams_to_devnull()
    _streams_never_fail_to_encode()
    streams = sys.stdout, sys.stderr
    _streams_say_when_they_fail()
    try:
        with ctrl_c_noted() as ctrl_c:
            return _run(argv, ctrl_c)
    finally:
        if isinstance(sys.stdout, _Guarded) and isinstance(sys.stderr, _Guarded):
            sys.stdout, sys.stderr = streams  # (as they were: tests and embedders call main() in one process)


def _run(argv: Sequence[str] | None, ctrl_c: list) -> int:
    from rulecraft.inputs import forget_inputs

    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # argparse: --help, --version, usage errors
            return _exit_code(exc)
        problem = seed_problem(args)
        if problem:
            print(f"{PROG} {args.verb}: error: {problem} (see '{PROG} {args.verb} --help')", file=sys.stderr)
            return EXIT_USAGE
        problem = _output_names_an_input(args)
        if problem:
            print(f"{PROG} {args.verb}: {problem}", file=sys.stderr)
            return EXIT_USAGE
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe must surface here, not in the interpreter's exit flush
        return code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except StreamFailed as exc:  # a full disk under `> report.txt`, `/dev/full`, a file size limit: one line, exit 1
        _silence_stdout()
        from rulecraft.files import os_error_text

        if exc.name == "stdout":
            try:
                print(f"{PROG}: " + os_error_text("standard output", exc.error), file=sys.stderr)
            except StreamFailed:
                pass  # standard error on the full disk too: nothing can be said
        return EXIT_DIAGNOSTICS
    except Exception as exc:
        if ctrl_c:  # a Ctrl-C that came out as another error (see ctrl_c_noted)
            print(file=sys.stderr)
            return EXIT_INTERRUPTED
        internal_error(exc)
        return EXIT_INTERNAL
    finally:
        forget_inputs()
        if argv is None:
            # the command line's own process, which ends now: Python's collector would walk every object left
            # (a loaded ruleset: tens of thousands) once more at exit for nothing; frozen, they are skipped
            gc.freeze()


# The options each verb writes to; every other file named on its command line is read (issue 25)
OUTPUTS = {"play": ("log", "save"), "render": ("output",), "sheets": ("output",), "book": ("output",),
           "aid": ("output",), "simulate": ("json", "csv", "coverage", "report"), "compare": ("json",), "diff": ("output",),
           "schema": ("output",)}


def _output_names_an_input(args) -> str | None:
    """One line when an output of this command is one of its input files (the ruleset, a log, a coverage file):
    it would be written over. A save may replace the save it resumes: that is the game going on."""
    from rulecraft.inputs import note_input, same_file_problem

    out_keys = OUTPUTS.get(getattr(args, "verb", ""), ())
    outputs = {f"--{k}" if k != "output" else "the output": v for k, v in vars(args).items()
               if k in out_keys and isinstance(v, str)}
    inputs: dict[str, str] = {}
    for k, v in vars(args).items():
        if k in out_keys or k.startswith("_") or k == "resume" and getattr(args, "save", None) in (None, v):
            continue
        for word in (v if isinstance(v, list) else [v]):
            one = _file_of_agent(word) or word  # every file the command reads: `--agent script:FILE`'s too
            if isinstance(one, str) and os.path.isfile(one):
                inputs.setdefault(f"the input {one}", one)
                note_input(one)
    return same_file_problem(outputs, inputs)


def _file_of_agent(word) -> str | None:
    if not (isinstance(word, str) and word.startswith("script:")):
        return None  # (the agents are imported only for an agent's word: `validate` never loads them)
    from rulecraft.agents.kinds import file_of

    return file_of(word)


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return EXIT_OK
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return EXIT_USAGE


def _closed_streams_to_devnull() -> None:
    """Run with a standard stream closed (`2>&-`), Python makes it None: `print(..., file=sys.stderr)` then writes to
    standard output (an error line in the middle of `--format json`) and `sys.stderr.isatty()` raised (exit 3). What
    would go to a closed stream goes nowhere instead."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
    if sys.stdin is None:  # (`<&-`: a person's answers then end at once, as at the end of input; it was exit 3)
        sys.stdin = open(os.devnull, encoding="utf-8")


def _streams_never_fail_to_encode() -> None:
    """A terminal or pipe that cannot show every letter (a Latin-1 locale, PYTHONIOENCODING=ascii): a stranger's
    title printed there was Python's UnicodeEncodeError, exit 3. What it cannot show it shows as '?', as it shows a
    control character (documents to '-' are UTF-8 bytes: `files.stdout_text`)."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", "strict") == "strict" and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (OSError, ValueError):
                pass  # not a text stream of Python's own (a test's capture): it writes what it is given


class StreamFailed(Exception):
    """Writing standard output or error failed for a reason other than its reader going away."""

    def __init__(self, name: str, error: OSError):
        super().__init__(name)
        self.name, self.error = name, error


class _Guarded:
    """A standard stream whose failures are StreamFailed: Python's OSError from a `print` was an internal error
    (exit 3) when standard output was a file on a full disk. A reader gone away stays a BrokenPipeError.
    `shown`: the map of what it writes (standard error's: control characters and bidirectional controls as '?',
    `diagnostics.UNPRINTABLE`), or None."""

    def __init__(self, stream, name: str, shown: dict | None = None):
        self._stream, self._name, self._shown = stream, name, shown

    def write(self, text):
        if self._shown is not None and isinstance(text, str):
            text = text.translate(self._shown)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StreamFailed(self._name, exc) from None

    def flush(self):
        try:
            return self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StreamFailed(self._name, exc) from None

    @property
    def unfiltered(self) -> "_Guarded":
        """This stream without the map: for the sequences rulecraft writes on purpose (the progress bar's carriage
        return; the hot seat's clear screen and colours when the story goes to standard error), never a text."""
        return _Guarded(self._stream, self._name) if self._shown is not None else self

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _streams_say_when_they_fail() -> None:
    """Both standard streams guarded; standard error also shows a stranger's control characters as '?' (session 20,
    second round): every error line may quote a value (a file's name from a stranger's zip, an `--agent` read from a
    stranger's file, a line pasted from a stranger's README), and an OSC 52 sequence in one wrote the terminal's
    clipboard, CSI cleared the screen, U+202E reversed the line. Standard output carries documents and the table's
    own colours: what it prints of a stranger's file is made printable where it is printed (section 1)."""
    from rulecraft.diagnostics import UNPRINTABLE

    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, io.TextIOWrapper):  # (a test's capture is left as it is)
            setattr(sys, name, _Guarded(stream, name, UNPRINTABLE if name == "stderr" else None))


def _silence_stdout() -> None:
    """The reader went away (e.g. `| head -1`): point stdout at /dev/null so the final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a real file (e.g. captured in a test): nothing will be flushed to a pipe


if __name__ == "__main__":
    raise SystemExit(main())
