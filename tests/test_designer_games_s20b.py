"""Leftovers of the s20 games written from the docs alone (tests/test_designer_games_s20.py), and three more games
written so, each of a kind the earlier test games do not have.

- a card's text says a noun after a value of 1 in the singular, as a label does ('Worth 1 point');
- the story of a sale paid to a player names who is paid;
"""

from __future__ import annotations


from designer_cases import case_ruleset

from rulecraft.tools.print.aidwords import card_texts
from rulecraft.tools.table.view import card_text


# ------------------------------------------------------------------------------------------------ card texts
def test_a_card_text_says_one_point_in_the_singular_as_a_label_does():
    """last-bid's prizes say "Worth {points} points at the end.": the prize worth 1 read "Worth 1 points" in the aid,
    the book, the terminal and the studio (all read the card's text); the others keep the plural."""
    rs = case_ruleset("last-bid")
    said = {c.id: c.text for c in rs.cards if c.id.startswith("prize_")}
    assert said["prize_1#1"] == "Worth 1 point at the end." and said["prize_2#1"] == "Worth 2 points at the end."
    assert [c.name for c in rs.cards if c.id == "prize_1#1"] == ["Prize 1"]
    texts = dict((text, names) for names, text in card_texts(rs, shared=True))
    assert "Worth 1 point at the end." in texts and "Worth 1 points at the end." not in texts
    assert card_text(rs, next(c for c in rs.cards if c.id == "prize_1#1")) == "Worth 1 point at the end."
