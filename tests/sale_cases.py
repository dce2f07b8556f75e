"""Rulesets of issue 36's constructs (auction sale settings, a target choice, 'until next turn', values per key of a
family) that the execution-path comparisons (test_codegen, test_blocks, test_fast_steps) play both ways."""

from pathlib import Path

_HERE = Path(__file__).parent / "cases"
PATHS = [str(_HERE / p) for p in ("games/gallery-sale.yaml", "games/last-guard.yaml",
                                   "constructs/auction_fixed_price/ruleset.yaml", "constructs/auction_lot/ruleset.yaml",
                                   "constructs/target/ruleset.yaml", "constructs/modifiers_next_turn/ruleset.yaml",
                                   "constructs/family_values/ruleset.yaml")]
IDS = [Path(p).stem if Path(p).stem != "ruleset" else Path(p).parent.name for p in PATHS]
SEEDS = 4
