"""The deterministic demo corpus: what the agents of four projects remembered over six months.

>>> from memory_core.demo import generate_demo
>>> corpus = generate_demo()          # the same seed always gives an equal corpus
>>> sorted({m.project for m in corpus.memories})
['atlas-api', 'dataforge', 'herd', 'lumen-web']
"""

from memory_core.demo.corpus import DEMO_SEED, DemoCorpus, generate_demo

__all__ = ["DEMO_SEED", "DemoCorpus", "generate_demo"]
