"""Rules by case drawn as one table: a long run of 'if' steps ("if the card's power is X, play X") as a box.

A chain of such rules is tall and narrow (a diamond and a box a rank each, most of the page beside it
empty). Drawn as a table, the words they share head it ("If the card's power is …"), and a row a case
gives what differs and what then happens, each cell with its step's number, tooltip and coverage. The
steps run as before: each case is tested in turn, and play goes on after the table.
"""

from __future__ import annotations

from typing import Optional

from rulecraft.model import ruleset as M
from rulecraft.model.kinds import yes_no

from rulecraft.tools.chart.dotlabels import attrs, esc, html, quote
from rulecraft.tools.chart.sheetplan import designer_label

CASE_RUN = 6  # rules by case in a row, at least, that are worth a table


def one_case(s: M.Step) -> Optional[M.Step]:
    """The one plain step a condition runs when it holds and nothing when not (a rule a case: 'if X: do Y'); None for
    any other step."""
    asks = yes_no(s)
    if asks is None:
        return None
    _cond, then, other = asks
    return then[0] if len(then) == 1 and not then[0].bodies and not other else None


def case_runs(steps) -> list[list[M.Step]]:
    """Runs of conditions ('if' steps: `question` kinds) one after the other, each with one plain step as its 'then'
    and no 'else' (a rule a case), in every step list of `steps`."""
    runs: list[list[M.Step]] = []

    def scan(body) -> None:
        run: list[M.Step] = []
        for s in list(body) + [None]:
            if s is not None and one_case(s) is not None:
                run.append(s)
                continue
            if len(run) >= CASE_RUN:
                runs.append(run)
            run = []
            if s is not None:
                for _name, inner in s.bodies:
                    scan(inner)

    scan(steps)
    return runs


def shared_words(texts: list[str]) -> tuple[str, list[str]]:
    """The words every text begins with, and what is left of each: ("If the card's power is", ["jester", ...]).
    ('', texts) when they share fewer than two words or one would be left with nothing."""
    split = [t.split() for t in texts]
    n = 0
    while all(len(w) > n + 1 for w in split) and len({tuple(w[n:n + 1]) for w in split}) == 1:
        n += 1
    if n < 2:
        return "", texts
    return " ".join(split[0][:n]), [" ".join(w[n:]) for w in split]


def case_table(chart, run: list[M.Step], indent: int = 1) -> None:
    """Draw `run` as one table node named by its first step (every step of the run is drawn by it)."""
    from rulecraft.tools.chart.dotlabels import text_lines

    full = chart.opts.detail == "full"

    def condition(s: M.Step) -> str:
        if designer_label(s):
            return chart.words.label(designer_label(s))
        return chart.g.nodes[s.path].label if full else chart.words.step(s, own_label=False)

    head, cases = shared_words([condition(s).rstrip("?") for s in run])
    cov = chart.opts.coverage

    def cell(nid: str, rows: list[str]) -> str:
        a = {"ALIGN": "LEFT", "BALIGN": "LEFT", "TOOLTIP": chart.cite(nid), "ID": chart.svg_id(nid)}
        if cov is not None:
            a["BGCOLOR"] = "white" if cov.count(nid) == 0 else cov.shade(nid, *chart.cov_range)
        return "<TD " + " ".join(f'{k}="{esc(str(v))}"' for k, v in a.items()) + ">" + "<BR/>".join(rows) + "</TD>"

    lines = []
    if head:
        first, last = chart.numbers.get(run[0].path, ""), chart.numbers.get(run[-1].path, "")
        span = f"<B>{esc(first)}–{esc(last)}</B>  " if first and last else ""
        lines.append(f'<TR><TD COLSPAN="2" ALIGN="LEFT">{span}{esc(head)} …</TD></TR>')
    for s, case in zip(run, cases):
        num = chart.numbers.get(s.path, "")
        said = text_lines(case, chart.w(16 if head else 26))
        if num:
            said[0] = f"<B>{esc(num)}</B>  {said[0]}"
        lines.append("<TR>" + cell(s.path, said) + cell(s.then[0].path, chart.body_rows(s.then[0].path)) + "</TR>")
    never = cov is not None and any(cov.count(s.path) == 0 for s in run)
    a = {"id": chart.svg_id(run[0].path + "+cases"), "tooltip": chart.cite(run[0].path), "shape": "plain",
         "label": html('<TABLE BORDER="1" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4" BGCOLOR="white">'
                       + "".join(lines) + "</TABLE>")}
    if never:
        a.update(color="#b00000")
    chart.line(f"{quote(run[0].path)} [{attrs(a)}];", indent)
