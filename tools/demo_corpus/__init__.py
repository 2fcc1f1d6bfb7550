"""The deterministic demo corpus: what the agents of four projects remembered over six months.

It runs only in a checkout, to regenerate the corpus memlens ships as package data
(`memory_core/demo_data/`): `python -m tools.demo_corpus` (`files.write_demo_files`), and a
test checks the committed files are what it writes, byte for byte.

>>> from tools.demo_corpus import generate_demo
>>> corpus = generate_demo()          # the same seed always gives an equal corpus
>>> sorted({m.project for m in corpus.memories})
['atlas-api', 'dataforge', 'herd', 'lumen-web']
"""

from tools.demo_corpus.corpus import DEMO_SEED, DemoCorpus, generate_demo

__all__ = ["DEMO_SEED", "DemoCorpus", "generate_demo"]
