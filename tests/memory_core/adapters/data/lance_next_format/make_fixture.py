"""Writes pylance-<version>/: a herd `memories` table and a Make_Skills `records` table in
Lance's draft file format (data_storage_version="next"), for test_lance_format.py.

Run it with the Lance whose draft is wanted, in a venv of its own:
    python -m venv /tmp/venv14 && /tmp/venv14/bin/pip install "pylance==14.*" pyarrow
    /tmp/venv14/bin/python make_fixture.py
"""

from pathlib import Path

import lance
import pyarrow as pa

OUT = Path(__file__).parent / f"pylance-{lance.__version__}"
CONTENTS = ["Chose LanceDB for the store", "Imports run in a scratch folder",
            "Keep fixtures small"]
vec = pa.list_(pa.float32(), 4)
n = 3
memories = pa.table({
    "id": pa.array([f"h-{i}" for i in range(n)]),
    "project": pa.array(["herd"] * n),
    "session_id": pa.array(["s-1"] * n),
    "agent": pa.array(["claude"] * n),
    "memory_type": pa.array(["decision", "observation", "lesson"]),
    "content": pa.array(CONTENTS),
    "vector": pa.array([[0.5, 0.5, 0.5, 0.5]] * n, vec),
    "created_at": pa.array(["2025-11-03T09:14:00Z"] * n),
    "metadata": pa.array(["{}"] * n),
})
records = pa.table({
    "id": pa.array([f"r-{i}" for i in range(n)]),
    "type": pa.array(["decision", "observation", "lesson"]),
    "content": pa.array(CONTENTS),
    "vector": pa.array([[0.5, 0.5, 0.5, 0.5]] * n, vec),
    "project_tags": pa.array([["skills"]] * n, pa.list_(pa.string())),
    "ts": pa.array([1762161240.0] * n),
})
for name, t in (("memories", memories), ("records", records)):
    ds = lance.write_dataset(t, OUT / f"{name}.lance", data_storage_version="next")
    print(name, ds.data_storage_version)
