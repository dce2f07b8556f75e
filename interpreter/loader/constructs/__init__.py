"""Mechanics said in one step (auction, respond), each expanded into plain steps when the ruleset loads.

`expansion` holds what every construct shares (settings, hidden names, the step generator) and `respond`;
`auction` the auction; `trick` a trick of a trick-taking game. A new construct is a module here (see docs/architecture.md).
"""
