"""What a person at a seat reads while playing: how to answer a decision and what was wrong with an answer
(`answers`), and the `?` help of a step (`help`). Both say things with the words of `rulecraft.tools.words`."""
