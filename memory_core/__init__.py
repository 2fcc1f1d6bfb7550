"""memlens' engine: the store, retrieval, curation, decay, the causal graph, the embedding
map, exchange, evaluation, stats and their plotly figures. No Streamlit in here.

Pages and notebooks import only the names this package exports. Each is written once, in
`__init__.pyi`, which type checkers read as the package's interface and `lazy_loader` reads
to load each name on first use, so `import memory_core` stays fast (heavy libraries load when
needed).
"""

from __future__ import annotations

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
