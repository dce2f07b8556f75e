"""Play in a real browser (Playwright driving Debian's Chromium against `rulecraft studio --play`): two browser
contexts take two seats of a sealed auction and of Hearts and play each to the end. Every websocket frame each
context receives, and its page's HTML after every move, is kept; none ever holds a card of another seat's hand
that the seat has not seen, nor another seat's private story line (its secret bid, the cards it passed), as the
server's own game says (made again from the game's log, decision by decision). A context without a seat token
is refused; a spectator's context is sent what is public only; a reload resumes the seat; each game's log
replays with `rulecraft replay`.

With RULECRAFT_STUDIO_SCREENSHOTS=FOLDER set, the screenshots of docs/studio.md's "Play" are written there.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from cli_fork import run_cli

from rulecraft.bundled import resolve

from studio_harness import chromium, shot, studio_server

WAIT = 60_000  # ms: an upper bound on a busy machine, never a measure
BIDS = {0: 21, 1: 31}  # each seat's sealed bid, plus the number of decisions before it: numbers that are nowhere
# else in the game (a bid revealed earlier is not bid again), so a leak shows
FRAME = """() => { const f = window.play && window.play.frame; return f && {n: f.decisions, seat: f.seat,
  asked: f.asked, over: f.view.over, kind: f.view.decision && f.view.decision.kind,
  min: f.view.decision && f.view.decision.min, max: f.view.decision && f.view.decision.max} }"""


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    folder = tmp_path_factory.mktemp("play")
    shutil.copy(resolve("hearts"), folder / "hearts.yaml")
    shutil.copy(resolve("sealed-auction"), folder / "auction.yaml")
    args = [str(folder / "hearts.yaml"), "--play", str(folder / "auction.yaml"), "--agent", "human", "--agent", "human",
            "--agent", "random", "--seed", "7", "--set", "lots_for_sale=2", "--set", "start_coins=100", "--pace", "0"]
    with studio_server(args, enough=lambda got: bool(got) and got[-1].startswith("spectator:")) as got:
        assert len(got) == 4, got
        yield folder, got[0], [line.split(": ", 1)[1] for line in got[1:4]]  # P1, P2, the spectator


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


class Seat:
    """One browser context at one seat: every frame it receives, and its page as it was after every move."""

    def __init__(self, browser, link: str):
        self.context = browser.new_context(viewport={"width": 1280, "height": 860})
        self.page = self.context.new_page()
        self.page.set_default_timeout(WAIT)
        self.frames: list[str] = []
        self.pages: list[tuple[int, str]] = []  # (decisions the page showed, its HTML)
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: self.frames.append(payload)))
        self.page.goto(link)
        self.wait()

    def wait(self, after: int = -1) -> dict:
        self.page.wait_for_function(f"n => {{ const f = ({FRAME})(); return f && f.n > n }}", arg=after)
        return self.page.evaluate(FRAME)

    def keep(self) -> None:
        n, html = self.page.evaluate("() => [window.play.frame.decisions, document.documentElement.outerHTML]")
        self.pages.append((n, html))

    def move(self, f: dict) -> None:
        """Answer the question asked: the first option, the first cards, a bid of BIDS[seat] + decisions."""
        page = self.page
        if f["kind"] in ("one", "yesno"):
            page.locator("#decision .options button").first.click()
        elif f["kind"] == "subset":
            if f["min"]:  # nothing picked yet: the button says what it needs, never 'Pass' (it is no answer here)
                send = page.locator("#decision button.send")
                assert send.is_disabled() and send.inner_text() in (f"Pick {f['min']}", f"Pick at least {f['min']}")
            for i in range(f["min"]):
                page.locator("#decision .options button.option").nth(i).click()
            page.locator("#decision button.send").click()
        else:
            page.fill("#decision input.amount", str(min(f["max"], BIDS[f["seat"]] + f["n"])))
            page.press("#decision input.amount", "Enter")  # Enter answers, as the button does


def play_out(seats: list[Seat], people: set[int], on_move=None) -> None:
    """Both seats play until the game ends, each answering when its page shows it is asked."""
    by_seat = {s.page.evaluate(FRAME)["seat"]: s for s in seats}
    waiting = " || ".join(f"f.asked === {p}" for p in sorted(people))
    moves = 0
    while True:
        f = seats[0].page.evaluate(FRAME)
        if f["over"]:
            break
        if f["asked"] not in people:  # a bot's go: it moves on the server
            seats[0].page.wait_for_function(f"() => {{ const f = ({FRAME})(); return f.over || {waiting} }}")
            continue
        s = by_seat[f["asked"]]
        g = s.page.evaluate(FRAME)
        if g["n"] < f["n"] or g["asked"] != g["seat"]:
            g = s.wait(f["n"] - 1)
        s.move(g)
        moves += 1
        if on_move:
            on_move(moves)
        seats[0].wait(g["n"])
        for x in seats:
            x.wait(g["n"])
            x.keep()
            tab_says_whose_turn(x)
    for x in seats:
        x.page.wait_for_function(f"() => ({FRAME})().over")
        x.keep()
        assert x.page.title().startswith("Game over · ")


def tab_says_whose_turn(seat: Seat) -> None:
    """The page's title (what a tab in the background shows) starts 'Your turn · ' exactly while the seat is asked:
    with three seats in three tabs, a person looking at another tab sees whose go it is without opening each."""
    mine, title = seat.page.evaluate("() => [window.play.frame.asked === window.play.frame.seat && "
                                     "!window.play.frame.view.over, document.title]")
    assert title.startswith("Your turn · ") == mine, (mine, title)


def game_folder(folder, link_seat_token: str):
    for game in (folder / ".rulecraft" / "games").iterdir():
        meta = json.loads((game / "game.json").read_text())
        if link_seat_token in meta["tokens"].values():
            return game, meta
    raise AssertionError("no game of that seat link")


def secrets_by_decision(game_dir, meta) -> tuple[dict, dict, set]:
    """From the game's log, made again decision by decision: for each number of decisions taken and each seat,
    the names of the cards in other seats' hands that seat has never seen, and their sealed answers not yet
    revealed; and for each seat, the private story
    lines of the others that it never read itself; and the cards' rules texts (a tooltip may name any card:
    'the queen of spades 13'), which the search leaves out."""
    from rulecraft.loader import load_ruleset
    from rulecraft.model.secrecy import cards_seen
    from rulecraft.runtime.game import Game
    from rulecraft.runtime.story import Line, forced_in_secret, line_text
    from rulecraft.tools.table.view import card_view

    rs = load_ruleset(str(game_dir / "ruleset.yaml"), overrides=meta["overrides"]).ruleset
    records = [json.loads(line) for line in (game_dir / "game.log").read_text().splitlines()]
    n = len(meta["kinds"])
    game = Game(rs, n, meta["seed"])
    seats = [*range(n), -1]  # -1: the spectator, a seat no player holds
    ever = {s: set() for s in seats}
    hidden: dict = {}
    sealed: dict = {}  # seat -> its sealed answer, until the answers are revealed

    def look() -> None:
        # a seat's frames count the forced answers the table asks as decisions (table.Held): the numbers from the
        # last look to now all stand for the game as it is now
        now = game.decisions + sum(forced_in_secret(line) is not None for line in game.narrative)
        for s in seats:
            ever[s] |= cards_seen(game, s)
            hands = [c for ref, cards in game.zones.items() for c in cards
                     if rs.zones[ref.zone].visibility in ("owner", "owner_contents")
                     and game.zone_owner(ref) is not None and game.zone_owner(ref).seat != s]
            # (a sealed answer that is a card the seat sees now, as one passed to it face down, is no secret to it)
            secret = {str(v) for o, v in sealed.items() if o != s and getattr(v, "index", None) not in ever[s]}
            unseen = {c.name for c in hands if c.index not in ever[s]}
            for number in range(max((k for k, t in hidden if t == s), default=-1) + 1, now + 1):
                hidden[(number, s)] = set() if game.over else unseen | secret

    look()
    for r in records:
        if r.get("type") == "decision":
            d, told = game.pending, len(game.narrative)
            if d.purpose == "sealed" and d.options[r["choice"]] is not None:
                sealed[d.player] = d.options[r["choice"]]
            game.apply(r["choice"])
            if any(isinstance(line, Line) and line.kind == "reveal" for line in game.narrative[told:]):
                sealed.clear()
            look()
    assert game.over
    private = {}
    for s in seats:
        mine = {line_text(line, (s,) if s >= 0 else ()) for line in game.narrative}
        private[s] = {str(line) for line in game.narrative if isinstance(line, Line) and line.only is not None
                      and s not in line.only and str(line) != line.public and str(line) not in mine}
    docs = {card_view(game, c).text for c in game.rs.cards} - {""}
    return hidden, private, docs


def assert_nothing_leaked(seat: Seat, number: int, hidden: dict, private: dict, docs: set) -> int:
    """No frame and no page of `seat` names a card it may not know of, or another seat's private line."""
    def named(text: str, names: set) -> list[str]:
        for doc in docs:
            text = text.replace(doc, "")
        return [x for x in names if re.search(r"(?<![0-9A-Za-z])" + re.escape(x) + r"(?![0-9A-Za-z])", text)]

    checked = 0
    for raw in seat.frames:
        frame = json.loads(raw)
        assert not named(raw, private[number]), f"a frame of seat {number} holds another seat's private line"
        if frame.get("type") == "state":
            frame["view"]["decision"] = None  # its options are every amount a bid may be: the seat's own question
            leaked = named(json.dumps(frame, ensure_ascii=False), hidden[(frame["decisions"], number)])
            assert not leaked, f"seat {number} was sent {leaked} at decision {frame['decisions']}"
            checked += 1
    for n, html in seat.pages:
        assert not named(html, hidden[(n, number)] | private[number]), f"seat {number}'s page at decision {n}"
    assert checked, f"seat {number} was sent no state"
    return checked


def replays(log) -> None:
    done = run_cli(["replay", str(log)])  # forked: tests/cli_fork.py
    assert done.returncode == 0 and "identical" in done.stdout, done.stdout + done.stderr


def test_a_sealed_auction_two_seats_and_a_stranger(studio, browser):
    folder, url, links = studio
    a, b = Seat(browser, links[0]), Seat(browser, links[1])
    watcher = Seat(browser, links[2])
    stranger = browser.new_context()
    page = stranger.new_page()
    assert page.goto(url.split("/?")[0] + "/play").status == 403  # no seat token: refused
    assert page.goto(url.split("/?")[0] + "/play?seat=a-guess").status == 403
    assert "no valid seat link" in page.inner_text("body")
    stranger.close()

    def reload_once(moves: int) -> None:
        if moves == 2:  # a reload resumes the seat, with its whole story
            before = a.page.evaluate("() => [window.play.frame.decisions, window.play.story.length]")
            a.page.reload()
            after = a.wait()
            assert after["seat"] == 0 and after["n"] >= before[0]
            assert a.page.evaluate("() => window.play.story.length") >= before[1]

    play_out([a, b], {0, 1}, reload_once)
    shot(a.page, "play-end.png")
    assert "The end:" in a.page.inner_text("#end") and "total" in a.page.inner_text("#end")
    game_dir, meta = game_folder(folder, links[0].split("seat=")[1])
    hidden, private, docs = secrets_by_decision(game_dir, meta)
    assert any(h for (n, seat), h in hidden.items() if seat == 0)  # P2's bid, while sealed
    assert assert_nothing_leaked(a, 0, hidden, private, docs) > 3
    assert assert_nothing_leaked(b, 1, hidden, private, docs) > 3
    watcher.keep()
    assert assert_nothing_leaked(watcher, -1, hidden, private, docs) > 3  # the spectator: what is public only
    watcher.context.close()
    replays(game_dir / "game.log")
    a.context.close()
    b.context.close()


def test_hearts_started_from_the_studio_page(studio, browser):
    folder, url, _links = studio
    context = browser.new_context(viewport={"width": 1400, "height": 860})
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    page.click("#tabs button[data-tab='play']")
    page.wait_for_selector("#play-start:not([disabled])")
    page.fill("#play-seed", "3")
    page.select_option("#play-options select[data-option='passing']", "hold")
    page.fill("#play-options input[data-option='end_score']", "10")
    page.click("#play-start")
    page.wait_for_selector("#play-games > li:first-child:has-text('Hearts') a")
    shot(page, "play-start.png")
    hrefs = page.eval_on_selector_all("#play-games > li:first-child a", "as => as.map(a => a.getAttribute('href'))")
    base = url.split("/?")[0]
    a, b = Seat(browser, base + hrefs[0]), Seat(browser, base + hrefs[1])
    watcher = Seat(browser, base + hrefs[2])
    assert page.inner_text("#play-games > li:first-child").count("bot (random)") == 2
    context.close()
    assert a.page.locator("#players .player.you .card").count() == 13  # the hand, as cards with tooltips
    assert "worth 1 point" in a.page.locator("#players .player.you .card").first.get_attribute("title")

    def picture(moves: int) -> None:
        if moves == 6:
            shot(a.page, "play-seat.png")

    play_out([a, b], {0, 1}, picture)
    game_dir, meta = game_folder(folder, hrefs[0].split("seat=")[1])
    assert meta["overrides"] == {"passing": "hold", "end_score": "10"}
    hidden, private, docs = secrets_by_decision(game_dir, meta)
    assert 36 <= len(hidden[(0, 0)]) <= 39  # at first, the three other hands (the two of clubs may be led)
    assert assert_nothing_leaked(a, 0, hidden, private, docs) > 10
    assert assert_nothing_leaked(b, 1, hidden, private, docs) > 10
    watcher.keep()
    assert len(hidden[(0, -1)]) >= 48  # every hand is hidden from the spectator
    assert assert_nothing_leaked(watcher, -1, hidden, private, docs) > 10
    watcher.context.close()
    replays(game_dir / "game.log")
    a.context.close()
    b.context.close()


def test_a_seat_on_a_phone_fits_its_screen_and_shows_the_decision_first(studio, browser):
    """A seat played on a phone (375 px): the page had two columns of at least 400 and 300 px, so it was 700 px wide
    and the table ran off the screen; now one column, nothing wider than the screen, the decision above the table."""
    _folder, _base, links = studio
    context = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT)
        page.goto(links[0])
        page.wait_for_function(f"() => ({FRAME})() !== null")
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        side, board = page.evaluate(
            "['#side', '#board'].map(s => document.querySelector(s).getBoundingClientRect().top)")
        assert side < board
    finally:
        context.close()


def test_the_seat_page_says_only_what_holds_for_the_game_it_shows(studio, browser):
    """The seat page's words follow the frame it is sent (a websocket answered by the test, from a real frame of the
    auction): the end said "Everything is revealed: every pile above shows its cards" in a game with no piles, and a
    pick from nothing read "Pick 0." and "Pass (none)" (found by s16-studio's first game from scratch)."""
    _folder, _base, links = studio
    first = browser.new_context()
    try:
        page = first.new_page()
        page.set_default_timeout(WAIT)
        page.goto(links[0])
        page.wait_for_function(f"() => ({FRAME})() !== null")
        real = page.evaluate("() => window.play.frame")
    finally:
        first.close()

    def shown(frame: dict) -> tuple[str, str]:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.set_default_timeout(WAIT)
            page.route_web_socket(re.compile(r".*/play/ws.*"), lambda ws: ws.send(json.dumps(frame)))
            page.goto(links[0])
            page.wait_for_function("() => window.play && window.play.frame !== null")
            return page.inner_text("#end"), page.inner_text("#decision")
        finally:
            context.close()

    view = real["view"]
    scores = [{"seat": p["seat"], "name": p["name"], "parts": [], "total": 0} for p in view["players"]]
    ended = dict(real, view=dict(view, over=True, decision=None, end={"scores": scores, "winners": [0]}))
    no_piles = dict(ended, view=dict(ended["view"], table=[r for r in view["table"] if r["type"] != "zone"],
                                     players=[dict(p, rows=[r for r in p["rows"] if r["type"] != "zone"])
                                              for p in view["players"]]))
    assert any(r["type"] == "zone" for r in view["table"])  # the auction's lots: piles to reveal
    assert "Everything is revealed" in shown(ended)[0]
    end, _ = shown(no_piles)
    assert "wins" in end and "Everything is revealed" not in end
    nothing = {"kind": "subset", "prompt": "Discard which?", "options": [], "min": 0, "max": 0, "secret": False,
               "roll": None, "passable": False}
    _, decision = shown(dict(real, view=dict(view, decision=nothing)))
    assert "nothing you can pick" in decision and "Go on" in decision
    assert "Pick 0" not in decision and "Pass (none)" not in decision


def test_play_again_takes_every_page_of_the_game_to_the_next(studio, browser):
    """Session 18, play-tested: after the end a table had to go back to the studio's page for a new game and send
    every link again. Now *Play again* on a seat's page starts the next game (the same rules, seats, bots and
    options, the seed after) and every page of the game over, the spectator's too, follows to its own seat of it."""
    import urllib.request

    folder, url, _links = studio
    base, token = url.split("/?token=")
    ask = urllib.request.Request(base + "/api/play/new", method="POST", headers={
        "authorization": f"token {token}", "content-type": "application/json"}, data=json.dumps(
        {"ruleset": "auction.yaml", "seats": ["human", "human"], "seed": 11,
         "options": {"lots_for_sale": 1, "start_coins": 40}}).encode())
    with urllib.request.urlopen(ask, timeout=WAIT / 1000) as r:
        game = json.loads(r.read())
    links = [base + s["link"] for s in game["seats"]] + [base + game["spectator"]]
    a, b, watcher = (Seat(browser, link) for link in links)
    assert a.page.locator("#decision button.again").count() == 0  # not before the end
    play_out([a, b], {0, 1})
    again = a.page.locator("#decision button.again")
    assert again.inner_text() == "Play again" and b.page.locator("#decision button.again").count() == 1
    assert watcher.page.locator("#decision button.again").count() == 0  # a spectator starts nothing
    shot(a.page, "play-again.png")
    again.click()
    for seat, (x, link) in enumerate(zip((a, b, watcher), links)):
        x.page.wait_for_url(lambda now, old=link: now != old)  # each page follows to its own link of the next game
        x.page.wait_for_function(f"() => {{ const f = ({FRAME})(); return f && !f.over }}")
        assert x.page.evaluate(FRAME)["seat"] == (seat if seat < 2 else None)
    news = [json.loads((g / "game.json").read_text()) for g in (folder / ".rulecraft" / "games").iterdir()]
    news = [m for m in news if m["seed"] == 12 and m["kinds"] == ["human", "human"]]
    assert len(news) == 1 and news[0]["overrides"] == {"lots_for_sale": "1", "start_coins": "40"}, news
    assert news[0]["tokens"]["0"] in a.page.url and news[0]["tokens"]["1"] in b.page.url
    assert news[0]["tokens"]["spectator"] in watcher.page.url
    # the studio's list says which game the new one was played again after, and its seed (session 19: not said);
    # no seat's page names a seed (with the ruleset, it deals every hidden card)
    host = browser.new_page()
    host.goto(url.replace("/?", "/?path=auction.yaml&") + "#play")
    host.wait_for_selector("#play-games li:has-text('seed 12 (Play again after the game of seed 11)')", timeout=WAIT)
    host.close()
    assert not any("seed" in x.page.inner_text("body").lower() for x in (a, b, watcher))
    for x in (a, b, watcher):
        x.context.close()
