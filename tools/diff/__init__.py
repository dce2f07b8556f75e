"""`rulecraft diff`: what one ruleset changes against another, in words, as data or as charts."""
