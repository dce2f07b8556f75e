"""The `rulecraft` command line: parses arguments, calls the library, prints, and picks the exit code.

Exit codes (the contract in DESIGN.md): 0 clean, 1 diagnostics, 2 usage (and verbs not
built yet), 3 internal error, 130 interrupted. Each verb is a small `cmd_<verb>(args) -> int`
registered in `VERBS`; heavy modules (yaml, lark, jsonschema, graphviz) are imported inside
the command functions so that `rulecraft --help` starts fast.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Callable, NamedTuple, Sequence

EXIT_OK = 0
EXIT_DIAGNOSTICS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # what a shell reports for a program ended by SIGPIPE

PROG = "rulecraft"

EPILOG = """\
RULESET is a path to a ruleset file or the name of a bundled one (see 'rulecraft list').

examples:
  rulecraft list
  rulecraft validate dml rulesets/examples/pig.yaml
  rulecraft validate --format json my-variant.yaml | python -m json.tool

exit codes: 0 clean, 1 diagnostics, 2 usage, 3 internal error.
'rulecraft VERB --help' shows the options of one verb."""


# ---------------------------------------------------------------------------------------
# list


def cmd_list(args: argparse.Namespace) -> int:
    from rulecraft.bundled import bundled_rulesets

    entries = bundled_rulesets(include_examples=True)
    if not entries:
        print(f"{PROG} list: no bundled rulesets found", file=sys.stderr)
        return EXIT_OK
    if args.names:
        for b in entries:
            print(b.name)
        return EXIT_OK
    width = max(len(b.name) for b in entries)
    games = [b for b in entries if not _is_example(b.path)]
    examples = [b for b in entries if _is_example(b.path)]
    if args.all:
        games, examples = games + examples, []
    for b in games:
        print(f"{b.name:<{width}}  {b.title}")
    if examples:
        if games:
            print()
        print("examples:")
        for b in examples:
            print(f"{b.name:<{width}}  {b.title}")
    return EXIT_OK


def _is_example(path: str) -> bool:
    return os.path.basename(os.path.dirname(path)) == "examples"


# ---------------------------------------------------------------------------------------
# validate


def cmd_validate(args: argparse.Namespace) -> int:
    import json

    from rulecraft.diagnostics import has_errors, render_text
    from rulecraft.loader import load_ruleset

    as_json = args.format == "json"
    records: list[dict] = []
    checked = with_errors = warnings = crashed = 0
    for ref in args.rulesets:
        checked += 1
        try:
            result = load_ruleset(ref)
        except Exception as exc:  # a bug in the loader: report it, keep checking the others
            crashed += 1
            _internal_error(exc, f"while loading {ref}")
            records.append({"ruleset": ref, "ok": False, "diagnostics": [], "internal_error": _describe_exc(exc)})
            continue
        diags = list(result.diagnostics)
        errors = has_errors(diags)
        warnings += sum(1 for d in diags if not d.is_error)
        ok = result.ok
        if not ok and not errors:
            # no ruleset and yet no error: the loader broke its promise, not the user
            crashed += 1
            print(f"{PROG}: internal error: loading {ref} gave no ruleset and no error diagnostic; "
                  "please report this", file=sys.stderr)
        elif not ok:
            with_errors += 1
        if as_json:
            records.append({"ruleset": ref, "ok": ok, "diagnostics": [d.to_dict() for d in diags]})
            continue
        if diags:
            print(render_text(diags, result.sources))
        if ok and not args.quiet:
            name, title = _name_and_title(ref, result)
            print(f"ok: {name} ({title})" if title and title != name else f"ok: {name}")
    if as_json:
        print(json.dumps(records, indent=2))
    elif not args.quiet:
        summary = f"{checked} ruleset{'s' if checked != 1 else ''} checked, {with_errors} with errors"
        if warnings:
            summary += f", {warnings} warning{'s' if warnings != 1 else ''}"
        if crashed:
            summary += f", {crashed} not checked (internal error)"
        print(summary)
    if crashed:
        return EXIT_INTERNAL
    return EXIT_DIAGNOSTICS if with_errors else EXIT_OK


def _name_and_title(ref: str, result) -> tuple[str, str | None]:
    """The ruleset's id and title, from the model if it has them, else from the file head."""
    rs = result.ruleset
    name = next((v for v in (getattr(rs, a, None) for a in ("id", "name", "ruleset")) if isinstance(v, str) and v), None)
    title = getattr(rs, "title", None)
    if name is None or not isinstance(title, str):
        from rulecraft.bundled import resolve

        head_name, head_title = _read_head(resolve(ref))
        name = name or head_name
        title = title if isinstance(title, str) else head_title
    return name or ref, title


def _read_head(path: str | None) -> tuple[str | None, str | None]:
    if not path:
        return None, None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4000)
    except OSError:
        return None, None
    m = re.search(r"^ruleset:\s*([A-Za-z0-9_.-]+)\s*$", head, re.M)
    t = re.search(r"^title:\s*(.+?)\s*$", head, re.M)
    return (m.group(1) if m else None), (t.group(1).strip("'\"") if t else None)


# ---------------------------------------------------------------------------------------
# verbs not built yet: registered with their contract arguments so --help shows them


def _not_built(verb: str, capability: str) -> int:
    print(f"{PROG} {verb}: not built yet: {capability}", file=sys.stderr)
    return EXIT_USAGE


def _feature(module: str, verb: str, capability: str, args: argparse.Namespace) -> int:
    """Run `rulecraft.tools.MODULE.run(args)`; a module not written yet means the verb is not built."""
    import importlib.util

    name = f"rulecraft.tools.{module}"
    if importlib.util.find_spec(name) is None:
        return _not_built(verb, capability)
    import importlib

    return int(importlib.import_module(name).run(args) or 0)


def cmd_play(args: argparse.Namespace) -> int:
    from .play import parse_sets, play

    try:
        overrides = parse_sets(args.set)
    except ValueError as exc:
        print(f"{PROG} play: {exc}", file=sys.stderr)
        return EXIT_USAGE
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    return play(args.ruleset, args.players, args.agent, args.seed, args.log, overrides, quiet=args.quiet,
                names=names, time_limit=args.time_limit, check=args.check, save_path=args.save,
                resume_path=args.resume, pace=args.pace)


def cmd_replay(args: argparse.Namespace) -> int:
    from .play import replay_log

    return replay_log(args.log, partial_ok=args.partial, quiet=args.quiet, ruleset=args.ruleset)


def cmd_render(args: argparse.Namespace) -> int:
    return _feature("render", "render", "flowcharts and sheets", args)


def cmd_sheets(args: argparse.Namespace) -> int:
    return _feature("sheets", "sheets", "flowcharts and sheets", args)


def cmd_book(args: argparse.Namespace) -> int:
    return _feature("book", "book", "the rulebook", args)


def cmd_schema(args: argparse.Namespace) -> int:
    return _feature("schemaout", "schema", "the JSON Schema for editors", args)


def cmd_lsp(args: argparse.Namespace) -> int:
    return _feature("lsp", "lsp", "the language server", args)


def cmd_aid(args: argparse.Namespace) -> int:
    return _feature("aid", "aid", "the player aid", args)


def cmd_simulate(args: argparse.Namespace) -> int:
    from .play import parse_sets
    from .simulate import progress_printer, report, simulate, unreached, write_coverage, write_csv, write_json

    try:
        overrides = parse_sets(args.set)
    except ValueError as exc:
        print(f"{PROG} simulate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from rulecraft.loader import load_ruleset
    from rulecraft.diagnostics import render_text

    loaded = load_ruleset(args.ruleset, overrides=overrides)
    if not loaded.ok:
        print(render_text(loaded.diagnostics, loaded.sources))
        return EXIT_DIAGNOSTICS
    rs = loaded.ruleset
    if args.players is not None and not rs.players.min <= args.players <= rs.players.max:
        print(f"{PROG} simulate: {rs.title} is for {rs.players.min} to {rs.players.max} players, not {args.players}",
              file=sys.stderr)  # a usage error, said before anything else
        return EXIT_USAGE
    from rulecraft.agents import AgentError, make_agent

    try:
        for seat, kind in enumerate(args.agent):
            make_agent(kind, seat, 0)
    except AgentError as exc:
        print(f"{PROG} simulate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    to_stdout = [o for o in ("json", "csv", "coverage") if getattr(args, o) == "-"]
    if len(to_stdout) > 1:
        print(f"{PROG} simulate: only one of --{', --'.join(to_stdout)} can be '-' (standard output)", file=sys.stderr)
        return EXIT_USAGE
    from rulecraft.files import output_problem

    for problem in filter(None, (output_problem(p) for p in (args.json, args.csv, args.coverage) if p)):
        print(f"{PROG} simulate: {problem}", file=sys.stderr)  # said before the games are played
        return EXIT_DIAGNOSTICS
    from .executors import ClusterError, Interrupted, Stopped, cli_runs, stop_code

    try:  # results are kept (on disk) only for the files that list every game
        with cli_runs(args.cluster) as where:
            summary = simulate(args.ruleset, args.games, **{"workers": args.workers, **where}, players=args.players,
                               seed=args.seed, agents=args.agent, overrides=overrides, check=args.check, coverage=True,
                               progress=progress_printer(), keep="disk" if args.json or args.csv else "none",
                               keep_coverage=bool(args.json))
    except (ClusterError, Interrupted, Stopped, KeyboardInterrupt) as exc:
        return stop_code(f"{PROG} simulate", exc)
    summary.never_reached = unreached(summary, loaded.graph)
    text_out = sys.stderr if to_stdout else sys.stdout  # standard output holds only the data asked for with '-'
    print(report(summary), file=text_out)
    from rulecraft.files import OutputError

    try:
        if args.json:
            write_json(summary, args.json)
        if args.csv:
            write_csv(summary, args.csv)
        if args.coverage:
            count = write_coverage(summary, loaded.graph, args.coverage)
            where = "standard output" if args.coverage == "-" else args.coverage
            print(f"coverage: {count} graph nodes never reached (listed in {where})", file=text_out)
        if args.report:
            from .report import write_report

            page = write_report(summary, args.report)
            print(f"report: {page}", file=text_out)
    except OutputError as exc:
        print(f"{PROG} simulate: {exc.message}", file=sys.stderr)
        return EXIT_DIAGNOSTICS
    return EXIT_DIAGNOSTICS if summary.errors else EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    return _feature("compare", "compare", "simulation and comparison", args)


def cmd_diff(args: argparse.Namespace) -> int:
    return _feature("diff", "diff", "ruleset diff", args)


# ---------------------------------------------------------------------------------------
# arguments of each verb


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got '{text}'") from None


def _ruleset(p: argparse.ArgumentParser, dest: str = "ruleset", metavar: str = "RULESET") -> None:
    p.add_argument(dest, metavar=metavar, help="a ruleset file or the name of a bundled ruleset")


def args_list(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true",
                   help="one flat list, the examples among the games, without the 'examples:' header")
    p.add_argument("--names", action="store_true", help="print only the names, one per line (for scripts)")


def args_validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("rulesets", metavar="RULESET", nargs="+",
                   help="ruleset files or names of bundled rulesets")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or json: one JSON list of {ruleset, ok, diagnostics}")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only the diagnostics: no 'ok:' lines, no summary")


def args_play(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("--players", type=_positive_int, metavar="N", help="number of players (default: the ruleset's)")
    p.add_argument("--agent", action="append", metavar="KIND", default=[],
                   help="who decides for the next seat: random, first, greedy, human, script:FILE or "
                        "python:MODULE:CLASS; repeat once per seat (the last kind fills the remaining seats, "
                        "human excepted); default: all random")
    p.add_argument("--seed", type=_seed, metavar="S", default=1,
                   help="random seed (default 1); the same seed and decisions replay the same game")
    p.add_argument("--log", metavar="FILE", help="write the game log (JSON lines) here, line by line")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="change a parameter or option for this game; repeatable")
    p.add_argument("--names", metavar="A,B,...", help="player names, comma separated")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="a human who does not answer in time gets the decision's default")
    p.add_argument("--pace", type=float, metavar="SECONDS",
                   help="when a person plays at a terminal, the pause before each line of the others' moves "
                        "(default 0.6; 0 for none; never when the output is piped)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.add_argument("--check", action="store_true", help="check card conservation after every step (slower)")
    p.add_argument("--save", metavar="FILE",
                   help="keep the game's state in FILE, rewritten whole (atomically) after every decision")
    p.add_argument("--resume", metavar="FILE",
                   help="go on with a game saved by --save (players, seed and --set come from it; it keeps saving "
                        "there); with --log, that log is continued")


def args_replay(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", metavar="LOG", help="a game log written by 'rulecraft play --log'")
    p.add_argument("--partial", action="store_true",
                   help="accept a log that stops before the game ended (e.g. a killed game) if it replays identically")
    p.add_argument("--quiet", action="store_true", help="print only the verdict")
    p.add_argument("--ruleset", metavar="RULESET",
                   help="replay with this ruleset (a path or bundled name) instead of the one the log names")


def args_render(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("--sequence", metavar="ID", help="draw only this sequence")
    p.add_argument("--format", choices=("svg", "png", "pdf", "dot", "json"), required=True,
                   help="output format; json: the sequence graph as data (every node and edge, docs/sheets.md)")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="output file ('-': standard output, for dot and json); without --sequence, the start "
                        "sequence (each other sequence goes next to it as STEM-SEQUENCE.EXT; a PDF gets one page "
                        "per sequence)")
    p.add_argument("--overview", action="store_true",
                   help="one chart of the whole game: its stages, the round, the phases and the turn")
    p.add_argument("--coverage", metavar="FILE",
                   help="shade each step by how often it ran, from 'rulecraft simulate --coverage FILE'")
    _detail(p)


def args_sheets(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("-o", "--output", metavar="FILE.pdf", required=True, help="output PDF")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)")
    p.add_argument("--coverage", metavar="FILE",
                   help="shade each step by how often it ran, from 'rulecraft simulate --coverage FILE'")
    _detail(p)


def _detail(p: argparse.ArgumentParser) -> None:
    p.add_argument("--detail", choices=("players", "full"), default="players",
                   help="players (default): the rules in words, without the engine's bookkeeping; "
                        "full: every step, with its rule text, for a designer")


def args_book(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("-o", "--output", metavar="FILE.html", required=True,
                   help="output page: FILE.html, or FILE.pdf (printed by headless Chromium)")
    _detail(p)


def args_aid(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("-o", "--output", metavar="FILE.pdf", required=True, help="output PDF")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)")


def args_simulate(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("--games", type=_positive_int, metavar="N", required=True, help="number of games")
    p.add_argument("--players", type=_positive_int, metavar="N", help="number of players")
    p.add_argument("--agent", action="append", metavar="KIND", default=[],
                   help="the bot for the next seat (random, first, greedy[:ROLLOUTS[:DEPTH]], script:FILE, "
                        "python:MODULE:CLASS); the last one fills the remaining seats; default random")
    p.add_argument("--seed", type=_seed, metavar="S", default=1,
                   help="seed of the first game (game i uses S+i); default 1")
    p.add_argument("--workers", type=_positive_int, metavar="W",
                   help="worker processes (default: the number of cores); results do not depend on it")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="play on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786) instead of local worker "
                        "processes; needs pip install 'rulecraft[cluster]'; results do not depend on it")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="change a parameter or option for every game; repeatable")
    p.add_argument("--check", action="store_true",
                   help="check card conservation after every step of every game, and work out every 'log' text "
                        "(a simulation otherwise skips the story nobody reads) (slower)")
    p.add_argument("--json", metavar="FILE", help="also write every game's result and the summary as JSON")
    p.add_argument("--csv", metavar="FILE", help="also write one row per game (CSV): seed, winners, scores, length, metrics")
    p.add_argument("--coverage", metavar="FILE",
                   help="write how often each node of the sequence graph ran (JSON), with the nodes never reached")
    p.add_argument("--report", metavar="DIR",
                   help="write an HTML report with plots (PNG) into DIR: win rates, game length, metrics")


def args_compare(p: argparse.ArgumentParser) -> None:
    _ruleset(p, "ruleset_a", "RULESET_A")
    _ruleset(p, "ruleset_b", "RULESET_B")
    p.add_argument("--games", type=_positive_int, metavar="N", required=True, help="games per ruleset")
    p.add_argument("--seed", type=_seed, metavar="S", default=1,
                   help="seed of the first game; game i of A and game i of B both use S+i (default 1)")
    p.add_argument("--players", type=_positive_int, metavar="N", help="number of players (default: A's default)")
    p.add_argument("--workers", type=_positive_int, metavar="W",
                   help="worker processes (default: the number of cores); results do not depend on it")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="play on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786) instead of local worker "
                        "processes; needs pip install 'rulecraft[cluster]'; results do not depend on it")
    p.add_argument("--agent", action="append", metavar="KIND", default=[],
                   help="the bot for the next seat, in both runs (as for simulate); default random")
    p.add_argument("--agent-a", action="append", metavar="KIND", default=[], dest="agent_a",
                   help="the bot for the next seat in A only (replaces --agent for A)")
    p.add_argument("--agent-b", action="append", metavar="KIND", default=[], dest="agent_b",
                   help="the bot for the next seat in B only (replaces --agent for B)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="change a parameter or option in both rulesets; repeatable")
    p.add_argument("--json", metavar="FILE", help="also write the comparison as JSON")


def args_diff(p: argparse.ArgumentParser) -> None:
    _ruleset(p, "ruleset_a", "RULESET_A")
    _ruleset(p, "ruleset_b", "RULESET_B")
    p.add_argument("--format", choices=("text", "json", "dot", "svg"), default="text",
                   help="text (default): the differences in words, by section; json: the same as data; dot or "
                        "svg: the flowcharts of the sequences that differ (added green, removed red and dashed, "
                        "changed orange)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write here instead of the terminal ('-' too means the terminal; svg needs a file)")


def args_schema(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", metavar="FILE", default="-",
                   help="write the schema here ('-', the default: standard output)")


def args_lsp(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true", help="accepted for editors that pass it; stdio is the only transport")


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
        super().error(message)


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
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # argparse: --help, --version, usage errors
            return _exit_code(exc)
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe must surface here, not in the interpreter's exit flush
        return code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        _internal_error(exc)
        return EXIT_INTERNAL


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return EXIT_OK
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return EXIT_USAGE


def _describe_exc(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _internal_error(exc: BaseException, context: str = "") -> None:
    where = f" {context}" if context else ""
    print(f"{PROG}: internal error{where}: {_describe_exc(exc)}", file=sys.stderr)
    if os.environ.get("RULECRAFT_DEBUG"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    else:
        print("please report this, with the command you ran and the ruleset "
              "(set RULECRAFT_DEBUG=1 to see the traceback)", file=sys.stderr)


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
