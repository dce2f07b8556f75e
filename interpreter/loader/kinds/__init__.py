"""The core step kinds, each in its own module and registered there (rulecraft.model.kinds): what a step does.

`action` (do), `call`, `branch` (if), `loops` (while, repeat, loop, for_each), `decide` (choose, sealed) and
`stack`: each holds how its steps are built from their YAML form, which locals they bind and how they are
lowered to instructions; their classes are in model/steps.py (every layer reads them) and their forms in
schema/ruleset.schema.json. The constructs said in one step (auction, respond, ...) are registered in
loader/constructs/kinds.py. Importing this package registers them all, in the schema's order.
"""

from __future__ import annotations

from . import action, call, branch, loops, decide, stack  # noqa: F401 - each registers its kinds

CORE = (*action.KINDS, *call.KINDS, *branch.KINDS, *loops.KINDS, *decide.KINDS, *stack.KINDS)
