"""The public names of `memory_core.causal`, each written once (see `__init__.py`)."""

from .contradictions import contradictions as contradictions
from .export import write_graph as write_graph
from .health import graph_health as graph_health
from .links import link as link
from .links import unlink as unlink
from .model import CAUSAL as CAUSAL
from .model import Contradiction as Contradiction
from .model import ContradictionSide as ContradictionSide
from .model import GraphEdge as GraphEdge
from .model import GraphHealth as GraphHealth
from .model import GraphNode as GraphNode
from .model import HealthFinding as HealthFinding
from .model import Lineage as Lineage
from .model import LineageFork as LineageFork
from .model import LineagePath as LineagePath
from .model import LineageStep as LineageStep
from .model import Neighbourhood as Neighbourhood
from .model import SupersessionChain as SupersessionChain
from .neighbourhood import neighbourhood as neighbourhood
from .walk import lineage as lineage
from .walk import supersession_chain as supersession_chain
